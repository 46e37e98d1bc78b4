#pragma once
// Routed experts and their redundant replicas placed on the GPUs of an EP group as DeepSeek's
// expert-parallel load balancer does it (deepseek-ai/EPLB; its global policy): each extra replica goes
// to the expert with the most load per replica, then replicas are packed, heaviest first, onto the
// GPU with the least load that still has a free slot, so every GPU holds the same number of
// experts and as even a load as the estimate allows. A token picks one of its expert's replicas.
#include <vector>

namespace workload {

struct ReplicatedPlacement {
  int gpus = 0;
  int slots_per_gpu = 0;                       // (experts + redundant) / gpus
  std::vector<std::vector<int>> expert_slots;  // slot ids of each expert's replicas; slot s is on GPU s / slots_per_gpu
  std::vector<double> gpu_load;                // the estimate's load on each GPU

  int replicas(int expert) const { return static_cast<int>(expert_slots[static_cast<std::size_t>(expert)].size()); }
  // The replica token `token` uses: the replicas take turns.
  int slot_for(int expert, int token) const {
    const auto& s = expert_slots[static_cast<std::size_t>(expert)];
    return s[static_cast<std::size_t>(token) % s.size()];
  }
};

// `expert_load`: an estimate of each expert's share of the traffic (any scale). `redundant`
// replicas beyond one per expert; (experts + redundant) must split evenly over `gpus` (the
// caller checks and names the field).
ReplicatedPlacement balance_experts(const std::vector<double>& expert_load, int redundant, int gpus);

// EPLB's hierarchical policy, which it takes when the nodes divide the expert groups (so that
// group-limited routing keeps a token's traffic on few nodes): whole groups (consecutive experts,
// `groups` of them) packed onto the `nodes` so each node carries an even load, then on each node
// its share of the redundant replicas made and packed onto its GPUs as the global policy does.
ReplicatedPlacement balance_experts_hierarchical(const std::vector<double>& expert_load, int redundant, int gpus,
                                                 int groups, int nodes);

// Whether EPLB takes its hierarchical policy for `groups` expert groups over `gpus` GPUs.
inline bool eplb_hierarchical(int groups, int gpus, int gpus_per_node) {
  return groups > 1 && gpus % gpus_per_node == 0 && groups % (gpus / gpus_per_node) == 0;
}

}  // namespace workload
