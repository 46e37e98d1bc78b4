#pragma once
// What a serving run is given: its units (each a deployment with its caps, memory and step
// cost), how requests are routed, scheduled and preempted, the KV transfer between phases, the
// prefix cache, MTP, the run's window and its fleet's autoscaling.
#include <cstdint>
#include <string>
#include <vector>

#include "serving/autoscaling.hpp"
#include "serving/engine_profile.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/step_cost.hpp"

namespace serving {

enum class RouterPolicy { kRoundRobin, kLeastLoaded, kKvAware };
enum class Preemption { kRecompute, kSwap };
// How a colocated unit mixes prompts and decoding sequences in its steps: chunked prefill (decode
// tokens first, then prompt chunks within the token budget: vLLM V1, SGLang); prefill first
// (vLLM V0's default: a step of whole prompts whenever one can be admitted, decoding paused); or
// static batching (a batch admitted only when the last one has finished, as before continuous
// batching).
enum class Scheduler { kChunkedPrefill, kPrefillFirst, kStatic, kGuaranteedNoEvict };

// The names a scenario gives them, from their registries (routers/router_registry.cpp,
// schedulers/scheduler_registry.cpp): each a name of the list, or false.
std::vector<std::string> router_names();
bool router_policy_named(const std::string& name, RouterPolicy& policy);
std::vector<std::string> scheduler_names();
bool scheduler_named(const std::string& name, Scheduler& kind);

struct UnitConfig {
  workload::ServingDeployment deployment;
  int max_running = 256;        // per DP rank: sequences in one step
  int max_batch_tokens = 8192;  // per DP rank: new tokens in one step (prefill, or chunk and decode when colocated)
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
  // ... or, where both ranks' GPUs lie in one NVLink domain of `domain_gpus` GPUs, over NVLink at
  // `kv_scale_up_Bps` a sending GPU after `kv_scale_up_latency_s`. The units are placed in GPU
  // order, prefill units first, then decode units, each filling the domains from where the last
  // ended (0: no domain is shared; every KV cache goes over the NICs).
  int domain_gpus = 0;
  double kv_scale_up_Bps = 0;
  double kv_scale_up_latency_s = 0;
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
  double warmup_s = 0;       // requests arriving earlier are served but not measured
  double duration_s = 60;    // arrivals stop; throughput is measured from warmup to here
  double drain_limit_s = 0;  // the run stops here even if requests remain (0: 10 x duration)
  double interval_s = 0;     // > 0: the fleet and its load per interval of this length (ServingResult::intervals)
  Autoscaling autoscaling;   // units per phase changed as the load goes (prefill_units, decode_units the most)
  std::uint64_t seed = 1;
  double trace_until_s = 0;  // Chrome trace of requests and unit counters up to here (0: none)
  // The engine's CPU work between steps. (A request's way in through the engine's front end and
  // out to its client is the caller's: an `EngineFrontEnd` in front of the source.)
  EngineProfile engine;
};

// The NVLink domain that all GPUs of a unit's DP rank lie in, for a unit whose GPUs begin at
// `first_gpu` (-1: they span several, or no domain is given). A DP rank's GPUs are its attention
// TP group, of every pipeline stage (then the unit's all).
inline int nvlink_domain(const ServingConfig& c, const UnitConfig& unit, long long first_gpu, int rank_in_unit) {
  if (c.domain_gpus <= 0) return -1;
  const workload::ServingDeployment& d = unit.deployment;
  const bool staged = d.pipeline_stages > 1;
  const long long first = first_gpu + (staged ? 0 : 1LL * rank_in_unit * d.attention_tp);
  const long long last = staged ? first_gpu + 1LL * d.gpus * d.pipeline_stages - 1 : first + d.attention_tp - 1;
  return first / c.domain_gpus == last / c.domain_gpus ? static_cast<int>(first / c.domain_gpus) : -1;
}
// Whether a prefill rank and a decode rank share an NVLink domain, the units placed as
// `domain_gpus` says: their KV caches then move over NVLink.
inline bool kv_over_nvlink_somewhere(const ServingConfig& c) {
  if (!c.disaggregated || c.domain_gpus <= 0) return false;
  const long long prefill_gpus = 1LL * c.prefill.deployment.gpus * c.prefill.deployment.pipeline_stages;
  // Only the domain where the prefill units end and the decode units begin can hold both.
  const long long boundary = c.prefill_units * prefill_gpus;
  int last_prefill = -1, first_decode = -1;
  for (int r = c.prefill.ranks() - 1; r >= 0 && last_prefill < 0; --r)
    last_prefill = nvlink_domain(c, c.prefill, boundary - prefill_gpus, r);
  for (int r = 0; r < c.decode.ranks() && first_decode < 0; ++r) first_decode = nvlink_domain(c, c.decode, boundary, r);
  return c.prefill_units > 0 && c.decode_units > 0 && last_prefill >= 0 && last_prefill == first_decode;
}

}  // namespace serving
