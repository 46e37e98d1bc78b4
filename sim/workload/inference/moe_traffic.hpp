#pragma once
// The expert-parallel all-to-all of a serving step's MoE layers: a micro-batch's tokens routed by
// the model's gate on synthetic affinities (or drawn from the experts' measured popularity, one
// profile per MoE layer) onto the placed experts (EPLB's replicas with redundant experts), sent
// point to point or DeepEP's way, and timed by flow simulation, by DeepEP's measured kernels or
// by the busiest port.
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "net/cluster.hpp"
#include "workload/inference/serving_deployment.hpp"
#include "workload/model/model.hpp"
#include "workload/moe/expert_placement.hpp"
#include "workload/moe/moe_dispatch.hpp"

namespace workload {

// The EP all-to-all of one micro-batch, as routed by the gate onto the placed experts.
struct MoeTraffic {
  double dispatch_s = 0, combine_s = 0;
  double imbalance = 1;                // busiest expert GPU / mean
  double busiest_expert_tokens = 0;    // routed token copies on the busiest expert GPU
  double busiest_experts_touched = 0;  // its experts that any of them chose, expected
  double ib_bytes_per_gpu = 0;
  bool simulated = false;
};

// What a routing of some tokens puts on the GPUs, before its bytes are scaled to a micro-batch.
struct RoutedLoad {
  double busiest_copies = 0, mean_copies = 0;  // routed token copies on the busiest expert GPU, and on the mean one
  std::vector<double> busiest_inclusion;       // a token's chance of choosing each of the busiest GPU's slots
  std::vector<GpuTraffic> dispatched;          // the dispatch's bytes sent and received per GPU
  DispatchTraffic dispatch;                    // by GPU pair: for a flow simulation only
};
struct AllToAllCache {
  std::map<long long, std::vector<MoeTraffic>> by_tokens;      // one per MoE-layer profile
  std::vector<std::optional<ReplicatedPlacement>> placements;  // with redundant experts, per profile
  std::vector<Routing> routings;                    // the most tokens routed yet (fewer take its start), per profile
  std::vector<double> gate_shares;                  // skewed synthetic affinities: the gate's share of each expert
  std::map<std::pair<int, int>, RoutedLoad> loads;  // by (profile, routed tokens)
  // A routing's first tokens counted on the GPUs (token copies per GPU by expert and by link),
  // per profile, by routed tokens: a new count adds its tokens past the nearest fewer.
  struct CountedTokens {
    std::vector<long long> load;
    std::vector<GpuCopies> copies;
  };
  std::vector<std::map<int, CountedTokens>> counted;
  // The MoE layers' parts after attention, one per profile, with the step's summaries of them,
  // by (tokens per micro-batch, prefill): nothing else of a step changes them.
  struct MoeCosts {
    double dispatch_s = 0, expert_s = 0, combine_s = 0, gate_s = 0, shared_s = 0, mlp_memory_s = 0;
    double swiglu_s = 0;  // of mlp_memory_s
  };
  struct MoeParts {
    std::vector<MoeCosts> costs;
    double expert_imbalance = 1, experts_touched = 0, ib_bytes_per_gpu = 0;
    bool flow_simulated = false;
  };
  // By the micro-batch's tokens, the phase and whether the step replays a CUDA graph.
  std::map<std::tuple<long long, bool, bool>, MoeParts> moe_parts;
};

// The routing's profiles: one per MoE layer with a measured popularity, else one for all.
int moe_profiles(const ServingDeployment& deployment);

// Each routed expert's share of the selections in profile `p` of the step's routing: the measured
// popularity's, or the gate's on the synthetic affinities (uniform and balanced: even; skewed:
// estimated from a sample of tokens, kept in the cache).
std::vector<double> expert_shares(const Moe& moe, const ServingDeployment& deployment, const GateConfig& gate,
                                  const ServingRequest& request, int p, AllToAllCache* cache);

// Every profile's all-to-all at `tokens` per micro-batch, kept in the cache.
std::vector<MoeTraffic> moe_traffics(const Model& model, const ServingDeployment& deployment, const ServingLinks& links,
                                     long long tokens, const ServingRequest& request, const net::Cluster* cluster,
                                     AllToAllCache* cache);

}  // namespace workload
