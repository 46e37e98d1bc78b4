#include "workload/moe/expert_placement.hpp"

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
  auto per_replica = [&](int e) {
    return expert_load[static_cast<std::size_t>(e)] / count[static_cast<std::size_t>(e)];
  };
  auto lighter = [&](int a, int b) {
    return per_replica(a) < per_replica(b) || (per_replica(a) == per_replica(b) && a > b);
  };
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
      if (used[static_cast<std::size_t>(g)] < p.slots_per_gpu &&
          (best < 0 || p.gpu_load[static_cast<std::size_t>(g)] < p.gpu_load[static_cast<std::size_t>(best)]))
        best = g;
    p.expert_slots[static_cast<std::size_t>(e)].push_back(best * p.slots_per_gpu +
                                                          used[static_cast<std::size_t>(best)]);
    ++used[static_cast<std::size_t>(best)];
    p.gpu_load[static_cast<std::size_t>(best)] += per_replica(e);
  }
  return p;
}

ReplicatedPlacement balance_experts_hierarchical(const std::vector<double>& expert_load, int redundant, int gpus,
                                                 int groups, int nodes) {
  const int experts = static_cast<int>(expert_load.size());
  const int group_size = experts / groups, groups_per_node = groups / nodes, gpus_per_node = gpus / nodes;
  const int slots_per_node = (experts + redundant) / nodes;

  // Groups onto nodes: heaviest first, each onto the least-loaded node with room.
  std::vector<double> group_load(static_cast<std::size_t>(groups), 0.0);
  for (int e = 0; e < experts; ++e)
    group_load[static_cast<std::size_t>(e / group_size)] += expert_load[static_cast<std::size_t>(e)];
  std::vector<int> order(static_cast<std::size_t>(groups));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return group_load[static_cast<std::size_t>(a)] > group_load[static_cast<std::size_t>(b)];
  });
  std::vector<double> node_load(static_cast<std::size_t>(nodes), 0.0);
  std::vector<std::vector<int>> node_groups(static_cast<std::size_t>(nodes));
  for (int grp : order) {
    int best = -1;
    for (int n = 0; n < nodes; ++n)
      if (static_cast<int>(node_groups[static_cast<std::size_t>(n)].size()) < groups_per_node &&
          (best < 0 || node_load[static_cast<std::size_t>(n)] < node_load[static_cast<std::size_t>(best)]))
        best = n;
    node_groups[static_cast<std::size_t>(best)].push_back(grp);
    node_load[static_cast<std::size_t>(best)] += group_load[static_cast<std::size_t>(grp)];
  }

  // Each node: its experts replicated and packed onto its GPUs; its slots follow the nodes before it.
  ReplicatedPlacement p;
  p.gpus = gpus;
  p.slots_per_gpu = (experts + redundant) / gpus;
  p.expert_slots.assign(static_cast<std::size_t>(experts), {});
  for (int n = 0; n < nodes; ++n) {
    std::vector<int> ids;
    std::vector<double> load;
    for (int grp : node_groups[static_cast<std::size_t>(n)])
      for (int e = grp * group_size; e < (grp + 1) * group_size; ++e) {
        ids.push_back(e);
        load.push_back(expert_load[static_cast<std::size_t>(e)]);
      }
    const ReplicatedPlacement local =
        balance_experts(load, slots_per_node - static_cast<int>(ids.size()), gpus_per_node);
    for (std::size_t i = 0; i < ids.size(); ++i)
      for (int slot : local.expert_slots[i])
        p.expert_slots[static_cast<std::size_t>(ids[i])].push_back(n * slots_per_node + slot);
    p.gpu_load.insert(p.gpu_load.end(), local.gpu_load.begin(), local.gpu_load.end());
  }
  return p;
}

}  // namespace workload
