#pragma once
// Requests served by units of GPUs, event by event: arrivals, routing, each unit's steps, KV
// cache transfers. Disaggregated: prefill units compute prompts and hand each KV cache over the
// fabric to a decode unit; colocated: each unit mixes prefill chunks into its decode steps. Every
// unit's attention is split into DP ranks (attention groups), each with its own requests and KV
// pages, batched continuously. Where the EP all-to-all joins them (an MoE model), all ranks of a
// unit step together and the busiest sets the step's time; a dense model's DP ranks are
// independent replicas, each stepping on its own clock.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "serving/autoscaling.hpp"
#include "serving/engine_profile.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/percentile_sketch.hpp"
#include "requests/request.hpp"
#include "requests/request_source.hpp"
#include "serving/step_cost.hpp"

namespace serving {

enum class RouterPolicy { kRoundRobin, kLeastLoaded, kKvAware };
enum class Preemption { kRecompute, kSwap };
// How a colocated unit mixes prompts and decoding sequences in its steps: chunked prefill (decode
// tokens first, then prompt chunks within the token budget: vLLM V1, SGLang); prefill first
// (vLLM V0's default: a step of whole prompts whenever one can be admitted, decoding paused); or
// static batching (a batch admitted only when the last one has finished, as before continuous
// batching).
enum class Scheduler { kChunkedPrefill, kPrefillFirst, kStatic };

struct UnitConfig {
  workload::ServingDeployment deployment;
  int max_running = 256;         // per DP rank: sequences in one step
  int max_batch_tokens = 8192;   // per DP rank: new tokens in one step (prefill, or chunk and decode when colocated)
  MemoryPlan memory;
  StepCost* cost = nullptr;
  // An MoE layer's all-to-all joins the DP ranks, so they step together; without one (a dense
  // model) no collective joins them and each rank steps alone.
  bool ranks_step_together = true;

  // DP ranks, and with pipeline stages as many batches in flight per DP rank, one per stage
  // (vLLM's virtual engines), each with its own requests and a share of the KV cache.
  int ranks() const { return deployment.attention_dp() * deployment.pipeline_stages; }
};

struct ServingConfig {
  bool disaggregated = true;
  int prefill_units = 1;
  int decode_units = 1;  // colocated: the units
  UnitConfig prefill, decode;
  RouterPolicy router = RouterPolicy::kLeastLoaded;
  Preemption preemption = Preemption::kRecompute;
  Scheduler scheduler = Scheduler::kChunkedPrefill;  // colocated units
  int page_tokens = 64;
  // KV cache from a prefill rank to a decode rank: each of the rank's `kv_senders` GPUs sends its
  // share at `kv_transfer_Bps` (its NIC), after `kv_transfer_latency_s`.
  double kv_transfer_Bps = 50e9;
  double kv_transfer_latency_s = 0;
  int kv_senders = 1;
  double swap_Bps = 50e9;  // preempted KV to host memory and back (PCIe)
  // Prefix cache: blocks kept across requests (from the requests' block hashes), and the
  // bandwidth a hit's KV comes in at (0: held in HBM, free).
  long long prefix_cache_blocks = 0;
  int prefix_block_tokens = 512;
  double prefix_fetch_Bps = 0;
  // Decode with MTP (speculative decoding): each step verifies `mtp_drafts` drafted tokens per
  // sequence; draft i is accepted with probability mtp_acceptance[i] once the ones before it are.
  // A sequence's number of steps is drawn from that when it joins a batch (`DecodeSteps`).
  int mtp_drafts = 0;
  std::vector<double> mtp_acceptance;
  // Disaggregated: one phase given unlimited capacity, to measure what the other serves alone
  // (serve-plan): prompts prefilled the moment they are ready (no prefill units), or requests done
  // once their KV cache has left prefill (no decode units).
  bool prefill_unbounded = false;
  bool decode_unbounded = false;
  double warmup_s = 0;        // requests arriving earlier are served but not measured
  double duration_s = 60;     // arrivals stop; throughput is measured from warmup to here
  double drain_limit_s = 0;   // the run stops here even if requests remain (0: 10 x duration)
  double interval_s = 0;      // > 0: the fleet and its load per interval of this length (ServingResult::intervals)
  Autoscaling autoscaling;    // units per phase changed as the load goes (prefill_units, decode_units the most)
  std::uint64_t seed = 1;
  double trace_until_s = 0;   // Chrome trace of requests and unit counters up to here (0: none)
  // The engine's CPU work between steps (its request path is the caller's: apply_request_path).
  EngineProfile engine;
};

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
  double mean_batch = 0, max_batch = 0;        // sequences per DP rank in a step
  double mean_step_tokens = 0;                 // new tokens per unit step
  double mean_queue = 0, max_queue = 0;        // requests waiting per unit
  double mean_kv_use = 0, max_kv_use = 0;      // share of the busiest rank's KV pages in use
  double mean_step_s = 0;
  double engine_s = 0;                         // of a step, the engine's CPU work it waited for (mean)
  double imbalance = 0;                        // busiest DP rank's tokens / mean, averaged over steps
  StepLoad mean_load;                          // averaged over steps: a typical step, for its breakdown
};

// One interval of a run (ServingConfig::interval_s): its units and its load. Units "in use" are
// serving, starting or draining (their GPUs are taken); "serving" take new requests.
struct FleetInterval {
  double prefill_unit_s = 0, decode_unit_s = 0;                  // units in use x seconds
  double prefill_serving_unit_s = 0, decode_serving_unit_s = 0;  // units serving x seconds
  double prefill_busy_s = 0;       // prefill unit-seconds stepping
  double decode_occupancy_s = 0;   // decode unit-seconds x the share of sequence slots or KV pages in use (the higher)
  double waiting_s = 0;            // requests waiting for a first token x seconds
  double waiting_at_end = 0;       // ... at the interval's end
  long long arrivals = 0;
  double input_tokens = 0, computed_input_tokens = 0, output_tokens = 0;  // processed in the interval
  int prefill_peak = 0, decode_peak = 0;  // most units in use at once
};

struct ServingResult {
  std::vector<RequestRecord> requests;  // by arrival (none where the records were streamed)
  long long arrived = 0;
  UnitSeries prefill, decode;
  double input_tokens_in_window = 0, computed_input_tokens_in_window = 0, output_tokens_in_window = 0;
  long long preemptions = 0;
  long long unfinished = 0;  // still in the system when the run stopped
  double end_s = 0;
  std::string trace_json;
  std::vector<FleetInterval> intervals;  // where ServingConfig::interval_s is given
  int scale_ups = 0, scale_downs = 0;    // autoscaling's decisions, units started and drained
  // Inter-token latency as a streaming client sees it: each decode step in the measured window
  // counts its step time once for every sequence it gives a token after its first (one streamed
  // chunk: the step's tokens of that sequence, several with MTP's drafts).
  PercentileSketch inter_token_s;
};

// Bounds on a run, checked by the scenario's reader before anything is allocated for it: the
// requests of a run (kMaxRequests, each with its record and state), and the DP ranks of a
// deployment (each with its queues).
inline constexpr long long kMaxRanks = 100'000;
double bytes_per_request();
double bytes_per_rank();

// `progress(simulated_s)` is called now and then with the simulated time reached. The requests
// come from `source` as the run reaches them; a run holds at most kMaxRequests
// (TooManyRequests).
ServingResult simulate_serving(RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress = {});
// A list of requests, run in order of arrival.
ServingResult simulate_serving(const std::vector<Request>& requests, const ServingConfig& config,
                               const std::function<void(double)>& progress = {});
// The records streamed to `on_record` as requests finish (and the unfinished at the end) rather
// than kept: a run's memory is then what is in flight, whatever its length, and it holds any
// number of requests.
ServingResult simulate_serving(RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress,
                               const std::function<void(const RequestRecord&)>& on_record);

}  // namespace serving
