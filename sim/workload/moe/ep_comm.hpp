#pragma once
// The expert-parallel all-to-all of one MoE layer for one micro-batch, from real routing
// decisions: tokens are routed by the model's node-limited gate (synthetic affinities, seeded),
// turned into IB and NVLink byte matrices (moe_dispatch.hpp) and timed on a fabric, either by
// flow simulation or analytically (each GPU's busiest link, no contention inside the fabric).
// The backward mirrors the forward: the gradient of combine travels the dispatch's way in the
// dispatch's precision (FP8 in DeepSeek-V3's recipe), the gradient of dispatch the combine's in BF16.
#include <array>
#include <cstdint>

#include "core/task_graph.hpp"
#include "net/fabric.hpp"
#include "workload/model/model.hpp"
#include "workload/moe/moe_dispatch.hpp"

namespace workload {

struct EpCommSetup {
  const Model* model = nullptr;
  int ep = 64;                         // GPUs of the EP group, whole nodes
  int tokens_per_gpu = 4096;           // of the micro-batch
  int simulated_tokens_per_gpu = 256;  // routed and simulated; bytes are scaled to tokens_per_gpu
  std::uint64_t seed = 1;
  AffinityDistribution affinity;  // of the synthetic tokens the gate routes
  bool fp8_dispatch = true;       // FP8 with a 4-byte scale per 128 channels, else BF16
  net::FabricSpec fabric;         // one EP group's: its node count is set from ep
  bool flow = true;               // flow simulation, else the analytical bound
  // Flow simulation on the whole fabric: every EP group of the cluster, as its global ranks on
  // `fabric` (then the cluster's, nodes included), all at once, routed with four seeds (seed,
  // seed + 1, ...) in turn; the slowest group's times. Empty: one group on a fabric of its own.
  std::vector<std::vector<int>> groups;
};

struct EpCommTimes {
  double dispatch_forward_s = 0;
  double combine_forward_s = 0;
  double combine_backward_s = 0;   // dispatch direction and precision
  double dispatch_backward_s = 0;  // combine direction, BF16 gradients
  double expert_imbalance = 1;     // max / mean expert-token assignments per GPU
  double ib_bytes_per_gpu_dispatch = 0;
  int groups_simulated = 1;  // EP groups in the flow simulation (the whole fabric's, or one)
  // Each group's own time of each op (by EpOp), in the same run (the four above are the slowest's).
  std::vector<std::array<double, 4>> group_op_s;
};

// The routed traffic of one MoE layer for one micro-batch, per EP group: what the times above
// are simulated from, and what a training step's run puts on the fabric op by op.
struct EpTraffic {
  std::vector<std::vector<int>>
      groups;  // each group's GPUs (global ranks); one group 0..ep-1 when not on the whole fabric
  std::vector<DispatchTraffic> forward;    // per distinct routing: the dispatch in its own precision
  std::vector<DispatchTraffic> gradients;  // the same routing in BF16: combine, and dispatch's backward
  double scale = 1;                        // simulated tokens to the micro-batch's
  double expert_imbalance = 1;             // of the first routing: max / mean expert-token assignments per GPU
  const DispatchTraffic& forward_of(std::size_t group) const { return forward[group % forward.size()]; }
  const DispatchTraffic& gradients_of(std::size_t group) const { return gradients[group % gradients.size()]; }
};
EpTraffic expert_parallel_traffic(const EpCommSetup& setup);

// The times of that traffic (setup.flow: flow-simulated, else the busiest port's bound).
EpCommTimes expert_parallel_comm(const EpCommSetup& setup);
EpCommTimes expert_parallel_comm(const EpCommSetup& setup, const EpTraffic& traffic);

// The four all-to-alls of a layer, and their names as DeepSeek's profile gives them.
enum class EpOp { kDispatchForward, kCombineForward, kCombineBackward, kDispatchBackward };
const std::array<EpOp, 4>& ep_ops();
const char* ep_op_name(EpOp op);
// One GPU's flows of an op (its rank `local` in group `group`) by stage: over IB (to the GPUs of
// its rail on the other nodes, which forward over NVLink) and over NVLink; with `recompute`, the
// backward op also carries its forward's rerun.
struct OpFlows {
  std::vector<core::Flow> ib, nvlink;
};
OpFlows ep_op_flows(const EpTraffic& traffic, std::size_t group, int local, EpOp op, bool recompute);

// One transfer per source GPU and stage (IB, NVLink), both stages starting together as DeepEP
// forwards over NVLink while tokens arrive. `reverse`: the same bytes backwards (combine).
core::TaskGraph dispatch_graph(const DispatchTraffic& traffic, double scale, bool reverse);

// Time of that graph when each GPU's links carry its bytes at full rate with no other
// contention: the busiest IB or NVLink port, sending or receiving.
double dispatch_bound_s(const DispatchTraffic& traffic, double scale, double ib_Bps, double nvlink_Bps);

}  // namespace workload
