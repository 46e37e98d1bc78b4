#include "workload/expert_placement.hpp"

#include <algorithm>
#include <numeric>
#include <queue>

namespace workload {

ReplicatedPlacement balance_experts(const std::vector<double>& expert_load, int redundant, int gpus) {
  const int experts = static_cast<int>(expert_load.size());
  ReplicatedPlacement p;
  p.gpus = gpus;
  p.slots_per_gpu = (experts + redundant) / gpus;

  // Replicate: each extra replica to the expert with the most load per replica (ties: lowest id).
  std::vector<int> count(static_cast<std::size_t>(experts), 1);
  auto per_replica = [&](int e) { return expert_load[static_cast<std::size_t>(e)] / count[static_cast<std::size_t>(e)]; };
  auto lighter = [&](int a, int b) { return per_replica(a) < per_replica(b) || (per_replica(a) == per_replica(b) && a > b); };
  std::priority_queue<int, std::vector<int>, decltype(lighter)> heaviest(lighter);
  for (int e = 0; e < experts; ++e) heaviest.push(e);
  for (int r = 0; r < redundant; ++r) {
    const int e = heaviest.top();
    heaviest.pop();
    ++count[static_cast<std::size_t>(e)];
    heaviest.push(e);
  }

  // Pack: replicas heaviest first, each onto the least-loaded GPU with a free slot.
  std::vector<int> replicas;
  for (int e = 0; e < experts; ++e)
    for (int k = 0; k < count[static_cast<std::size_t>(e)]; ++k) replicas.push_back(e);
  std::stable_sort(replicas.begin(), replicas.end(), [&](int a, int b) { return per_replica(a) > per_replica(b); });
  p.gpu_load.assign(static_cast<std::size_t>(gpus), 0.0);
  std::vector<int> used(static_cast<std::size_t>(gpus), 0);
  p.expert_slots.assign(static_cast<std::size_t>(experts), {});
  for (int e : replicas) {
    int best = -1;
    for (int g = 0; g < gpus; ++g)
      if (used[static_cast<std::size_t>(g)] < p.slots_per_gpu && (best < 0 || p.gpu_load[static_cast<std::size_t>(g)] < p.gpu_load[static_cast<std::size_t>(best)]))
        best = g;
    p.expert_slots[static_cast<std::size_t>(e)].push_back(best * p.slots_per_gpu + used[static_cast<std::size_t>(best)]);
    ++used[static_cast<std::size_t>(best)];
    p.gpu_load[static_cast<std::size_t>(best)] += per_replica(e);
  }
  return p;
}

}  // namespace workload
