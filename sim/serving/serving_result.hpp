#pragma once
// What a serving run gives back: each request's record, each kind of unit's time-weighted
// figures, the fleet per interval, and the inter-token latency a streaming client sees.
#include <string>
#include <vector>

#include "serving/percentile_sketch.hpp"
#include "serving/step_cost.hpp"

namespace serving {

struct RequestRecord {
  double arrival_s = 0;
  int input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  double prefill_start_s = -1, prefill_end_s = -1, transfer_end_s = -1;
  double first_token_s = -1, finish_s = -1;
  int preemptions = 0;
  bool in_window = false;
};

// Time-weighted figures of one kind of unit over the measured window.
struct UnitSeries {
  double busy_s = 0, steps = 0;
  double mean_batch = 0, max_batch = 0;    // sequences per DP rank in a step
  double mean_step_tokens = 0;             // new tokens per unit step
  double mean_queue = 0, max_queue = 0;    // requests waiting per unit
  double mean_kv_use = 0, max_kv_use = 0;  // share of the busiest rank's KV pages in use
  double mean_step_s = 0;
  double engine_s = 0;   // of a step, the engine's CPU work it waited for (mean)
  double imbalance = 0;  // busiest DP rank's tokens / mean, averaged over steps
  StepLoad mean_load;    // averaged over steps: a typical step, for its trace
  workload::ServingStepBreakdown
      mean_parts;  // each step's parts, averaged over steps: they add up to the mean GPU step
};

// One interval of a run (ServingConfig::interval_s): its units and its load. Units "in use" are
// serving, starting or draining (their GPUs are taken); "serving" take new requests.
struct FleetInterval {
  double prefill_unit_s = 0, decode_unit_s = 0;                  // units in use x seconds
  double prefill_serving_unit_s = 0, decode_serving_unit_s = 0;  // units serving x seconds
  double prefill_busy_s = 0;                                     // prefill unit-seconds stepping
  double decode_occupancy_s = 0;  // decode unit-seconds x the share of sequence slots or KV pages in use (the higher)
  double waiting_s = 0;           // requests waiting for a first token x seconds
  double waiting_at_end = 0;      // ... at the interval's end
  long long arrivals = 0;
  double input_tokens = 0, computed_input_tokens = 0, output_tokens = 0;  // processed in the interval
  int prefill_peak = 0, decode_peak = 0;                                  // most units in use at once
};

struct ServingResult {
  std::vector<RequestRecord> requests;  // by arrival (none where the records were streamed)
  long long arrived = 0;
  UnitSeries prefill, decode;
  double input_tokens_in_window = 0, computed_input_tokens_in_window = 0, output_tokens_in_window = 0;
  long long preemptions = 0;
  long long unfinished = 0;  // still in the system when the run stopped
  double end_s = 0;
  double way_in_s = 0;            // the measured requests' mean from their send to the engine's queue (its front end)
  bool front_end_behind = false;  // a request sent by the window's middle reached the engine after its end
  std::string trace_json;
  std::vector<FleetInterval> intervals;  // where ServingConfig::interval_s is given
  int scale_ups = 0, scale_downs = 0;    // autoscaling's decisions, units started and drained
  // Inter-token latency as a streaming client sees it: each decode step in the measured window
  // counts its step time once for every sequence it gives a token after its first (one streamed
  // chunk: the step's tokens of that sequence, several with MTP's drafts).
  PercentileSketch inter_token_s;
};

}  // namespace serving
