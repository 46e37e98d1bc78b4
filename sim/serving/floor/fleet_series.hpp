#pragma once
// The run's figures over time: each kind of unit's measured steps summed, weighted by their
// durations (`StepSums`, into `UnitSeries`); the fleet per interval (`FleetInterval`: its units
// in use and serving, its load and tokens); and the counters of the Chrome trace.
#include <cstddef>
#include <string>
#include <vector>

#include "serving/serving_config.hpp"
#include "serving/serving_result.hpp"
#include "serving/step_cost.hpp"

namespace serving {

// Sums over a kind of unit's measured steps, each weighted by its duration.
struct StepSums {
  double batch = 0, tokens = 0, queue = 0, kv = 0, imbalance = 0;
  workload::GroupLoad load;
  workload::ServingStepBreakdown parts;  // summed over steps
  double unit_tokens_sum = 0, prefill_steps = 0;
  int mtp_drafts = 0;
  UnitSeries out;
  void add(double step_s, double batch_per_rank, double unit_tokens, double queue_len, double kv_use, double imb,
           const StepLoad& step, const workload::ServingStepBreakdown& step_parts);
  UnitSeries finish() const;
};

struct FleetSeries {
  StepSums prefill, decode;
  double clock_s = 0;  // the intervals' integrals reach here, in this interval
  std::size_t clock_index = 0;
  struct Counter {
    double t;
    int unit;
    double batch, queue, kv;
  };
  std::vector<Counter> counters;  // a unit's batch, queue and KV use at each step, for the trace

  // The interval holding `t`, made where it is the first.
  FleetInterval& interval(ServingResult& result, double t) const {
    const auto i = static_cast<std::size_t>(std::max(0.0, t) / interval_s);
    if (i >= result.intervals.size()) result.intervals.resize(i + 1);
    return result.intervals[i];
  }
  // The intervals' time integrals, from where they were to `t`, with the units in use and serving
  // by side and the requests waiting for a first token since then.
  void account(ServingResult& result, double t, int prefill_in_use, int decode_in_use, int prefill_serving,
               int decode_serving, long long waiting_first);
  // The Chrome trace: the run's first requests (up to `until_s`) and each unit's counters.
  std::string trace_json(const ServingResult& result, bool disaggregated, double until_s) const;

  double interval_s = 0;
};

}  // namespace serving
