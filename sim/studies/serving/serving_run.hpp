#pragma once
// The serving study as the scenario reader leaves it (study_serving.cpp): the model, the cluster,
// the units, the workload and what to report; and what it does with them. `run` simulates the
// requests and writes the report, calling on the files of this folder, one concept each:
//   serving_run.cpp      the run: the step costs, the request source, the engine around it
//   serving_rows.cpp     the report's rows: latencies and throughput, the step breakdown, clients,
//                        the throughput mode, the engine's share; each request's times as CSV
//   serving_notes.cpp    the notes on the deployment and on how step times are made
//   fleet_run.cpp        a fleet over time: records streamed into series, its totals and cost
//   max_rate_search.cpp  the highest rate within the SLO (`"slo": {"search": true}`, serve-search)
//   serve_plan.cpp       serve-plan: each unit's rate, the units a load needs, batch caps
//   day_plan.cpp         serve-plan over a load profile: the fewest node-hours for a day
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "requests/closed_loop_source.hpp"
#include "requests/load_profile.hpp"
#include "requests/request_generator.hpp"
#include "serving/request_series.hpp"
#include "serving/serving_metrics.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"
#include "studies/config/cluster_config.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/report/study.hpp"
#include "studies/serving/serving_limits.hpp"
#include "studies/serving/unit_spec.hpp"
#include "workload/inference/inference.hpp"

namespace studies::serving_study {

class ServingStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  ClusterConfig cluster;
  ComputeConfig compute;
  bool flow = false;
  bool disaggregated = true;
  UnitSpec prefill, decode;
  serving::ServingConfig config;
  workload::ServingRequest base;
  workload::ServingLinks links;
  std::optional<requests::GeneratedWorkload>
      generated;                               // drawn as each run goes (a fleet's hour is 10.8 million requests)
  std::vector<requests::Request> trace;        // a trace's requests, as run, within duration_s
  std::vector<requests::Request> whole_trace;  // to replay at another pace
  std::string workload_text;                   // {requests}: where the number of requests goes

  std::string workload_note(std::size_t requests) const;
  requests::ClientLoop clients;  // closed-loop benchmark clients (client_levels: how many, each level a run)
  bool capped = false;           // beside the workload's arrivals: the clients cap the requests in flight
  std::vector<int> client_levels;
  // A fleet over time (a load profile, autoscaling or a cost given): series by interval, the
  // records streamed, the day's totals, the fleet's cost.
  bool fleet = false;
  double usd_per_gpu_hour = 0;
  double usd_per_million_hit = 0, usd_per_million_miss = 0, usd_per_million_output = 0;  // a price list (0: none)
  bool priced = false;
  serving::Slo slo;
  bool search = false;
  double search_max_scale = kSearchMaxScale;  // held to kMaxRequests at the scenario's duration
  bool plan = false;
  double plan_rate = 0;  // the load to plan for (0: the workload's)
  // A plan for a day (a fleet with a load profile): the stationary runs that find the rates.
  double day_window_s = 300, day_warmup_s = 60;
  std::vector<int> plan_caps;

  StudyResult run(const RunOptions& options) const override;

  bool gives_series() const override { return fleet; }
  bool keeps_requests() const override { return !fleet && client_levels.size() <= 1; }
  bool gives_trace() const override { return !fleet; }

  std::string label_;
  std::string router_name_;

  // How step times are made, and how many step shapes the run computed for how many steps.
  std::string step_times_note(const serving::StepCost& prefill_cost, const serving::StepCost& decode_cost) const;

  // A fleet's run: the records streamed into per-interval tallies, the day's totals, the fleet
  // by the hour, its cost.
  void fleet_run(StudyResult& r, const serving::ServingConfig& c, serving::StepCost& prefill_cost,
                 serving::StepCost& decode_cost) const;
  // The SLO as the plan and search judge it: p90s within it, over an interval's requests.
  bool kept(const serving::RequestTally& t) const;
  void fleet_rows(StudyResult& r, const serving::ServingConfig& c, const serving::ServingResult& res,
                  const serving::RequestSeries& series) const;
  std::string fleet_csv(const serving::ServingConfig& c, const serving::ServingResult& res,
                        const serving::RequestSeries& series) const;

  double base_rate() const {
    return generated ? generated->arrivals.rate_per_s : double(trace.size()) / config.duration_s;
  }
  // Requests in a run at `scale` times the workload's rate (a trace: those read, at most).
  double expected_requests(double scale) const;

 private:
  // The run (serving_run.cpp).
  workload::ServingLinks links_for(const UnitSpec& u) const;
  // The typical steps' stage graphs, each a process of its own beside the requests in the trace.
  static std::string with_step_stages(const std::string& trace,
                                      const std::vector<std::pair<std::string, workload::ServingStep>>& steps);
  // A trace's requests replayed at `scale` (not 1) times its pace.
  std::vector<requests::Request> requests_at(double scale, double duration_s) const;
  // `clients`: closed-loop clients in place of the workload's arrivals (0: its arrivals).
  serving::ServingResult simulate(const serving::ServingConfig& c, double scale, const char* progress = nullptr,
                                  int clients_count = 0) const;
  double node_gpus() const { return cluster.cluster.gpus_per_node; }
  double gpus_of(const serving::ServingConfig& c) const;

  // The report's rows (serving_rows.cpp).
  // Where a typical step's time goes, per phase: each measured step's parts averaged (`result`
  // null: the rows named only).
  void breakdown_rows(StudyResult& r, const serving::ServingResult* result, serving::StepCost* prefill_cost,
                      serving::StepCost* decode_cost,
                      std::vector<std::pair<std::string, workload::ServingStep>>* steps = nullptr) const;
  // Each request's times, as a benchmark client records them (Vidur's per-request metrics): one
  // row a request, in the order they arrived.
  static void write_requests_csv(const std::string& path, const serving::ServingResult& result);
  // One level of a concurrency sweep, as benchmark clients report it: TTFT, TPOT and end-to-end
  // latency (mean and percentiles), requests/s, output tokens/s per GPU and per user.
  void client_rows(StudyResult& r, const serving::ServingConfig& c, int level,
                   const serving::ServingResult* run = nullptr) const;
  // Every request at 0 s (trtllm-bench's throughput mode): what the run took to serve them all.
  void throughput_mode_rows(StudyResult& r, const serving::ServingResult& result,
                            const serving::ServingConfig& c) const;
  // What the engine's profile added to the GPU's times: the CPU work steps waited for, and the
  // request's way in (HTTP, tokenizer) and its tokens' way out (detokenize, stream).
  void engine_rows(StudyResult& r, const serving::ServingResult& result, const serving::EngineProfile& e,
                   double window_s) const;
  // Where the measured requests' time to first token goes (means, adding up to TTFT's mean): the
  // engine's front end, the wait for a prefill rank, the prompt's steps (the engine's CPU work in
  // them by its share of those steps), the KV cache's transfer, the first decode step (or, under
  // an overlapping engine, the step after the prompt's) and the token's way out.
  void ttft_rows(StudyResult& r, const serving::ServingResult& result, const serving::ServingConfig& c) const;
  void add_rows(StudyResult& r, const std::string& prefix, const serving::ServingMetrics& m,
                const serving::ServingResult& result) const;

  // The highest rate within the SLO (max_rate_search.cpp).
  bool meets(const serving::ServingResult& res, const serving::ServingMetrics& m) const;
  // The highest arrival rate whose TTFT p90 and TPOT p90 stay within the SLO on `c`: the
  // workload's arrivals compressed by a factor found by bisection (geometric; 10 runs).
  struct Found {
    bool any = false;
    double rate_per_s = 0;
    serving::ServingMetrics at;  // at that rate, or (none) at the lowest tried
  };
  Found find_max_rate(const serving::ServingConfig& c) const;
  void search_rows(StudyResult& r, const serving::ServingConfig& c) const;

  // serve-plan (serve_plan.cpp).
  // What one unit of each kind serves within the SLO, the other kind given unlimited capacity
  // (disaggregated), or one colocated unit.
  struct UnitRates {
    bool any = false;
    double prefill = 0, decode = 0;  // requests/s (colocated: `decode` is the unit's)
    std::string miss;                // where none: the kind that misses even alone
  };
  UnitRates unit_rates(const serving::ServingConfig& c) const;
  // Units that serve `load` together within the SLO: each kind's rate alone divided into it, then
  // simulated together and, while the whole misses, a unit more of the phase that binds (a prefill
  // unit near its limit also waits for decode pages), up to kMaxPlanAdditions.
  struct Together {
    serving::ServingConfig config;
    serving::ServingMetrics metrics;
    bool met = false;
    int first_prefill = 0, first_decode = 0;  // from the rates alone
    int added() const { return config.prefill_units - first_prefill + config.decode_units - first_decode; }
  };
  Together fit_together(const serving::ServingConfig& c, const UnitRates& rates, double load,
                        const std::string& pointer) const;
  std::string additions_note(const Together& t) const;
  // serve-plan: what one unit of each kind serves within the SLO, the other kind given unlimited
  // capacity; the ratio that balances them; the units a load needs, checked by simulating them
  // together; and throughput per GPU against per-user speed over decode batch caps.
  void plan_rows(StudyResult& r, const serving::ServingConfig& c) const;
  // The units of a kind that serve `load` at `unit_rate` each, held to serving::kMaxRanks.
  // `pointer`: the field that gave the load ("": the unit's own count).
  int units_for(double load, double unit_rate, const UnitSpec& u, const std::string& pointer) const;
  // Requests that finished decoding per second of the measured window.
  static double finished_per_s(const serving::ServingResult& res, const serving::ServingConfig& c);

  // A plan for the day (day_plan.cpp): serve-plan on a load profile: the fewest node-hours that
  // keep the SLO interval by interval under the policy's bounds, against a fixed fleet sized for
  // the peak. Each kind's rate per unit is found on the load held flat (one unit's share of the
  // peak, over the plan's window); the units meeting the SLO together are found by simulation at
  // the day's trough, midway and peak; each interval takes the units its highest rate needs at
  // the rates alone, scaled by what running together added, interpolated in load between those
  // three.
  void day_plan_rows(StudyResult& r, const serving::ServingConfig& fleet_config) const;

  // The deployment as the notes describe it (serving_notes.cpp).
  std::string deployment_note() const;
};

}  // namespace studies::serving_study
