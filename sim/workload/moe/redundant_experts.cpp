#include "workload/moe/redundant_experts.hpp"

#include <algorithm>
#include <numeric>

namespace workload {

std::vector<double> gpu_load_with_redundancy(const std::vector<int>& expert_load, const ExpertPlacement& p,
                                             int redundant_per_gpu) {
  const int per_gpu = p.experts_per_gpu();
  std::vector<double> gpu_load(static_cast<std::size_t>(p.gpus), 0.0);
  const int nodes = p.gpus / p.gpus_per_node;
  for (int node = 0; node < nodes; ++node) {
    const int first_gpu = node * p.gpus_per_node;
    const int first_expert = first_gpu * per_gpu, last_expert = (first_gpu + p.gpus_per_node) * per_gpu;
    // replicas[e]: the GPUs of this node holding expert e (its home first).
    std::vector<std::vector<int>> replicas(static_cast<std::size_t>(last_expert - first_expert));
    for (int e = first_expert; e < last_expert; ++e) replicas[e - first_expert] = {p.gpu_of_expert(e)};
    std::vector<int> free_slots(static_cast<std::size_t>(p.gpus_per_node), redundant_per_gpu);
    auto per_replica = [&](int e) { return double(expert_load[e]) / replicas[e - first_expert].size(); };
    auto node_loads = [&] {
      std::vector<double> load(static_cast<std::size_t>(p.gpus_per_node), 0.0);
      for (int e = first_expert; e < last_expert; ++e)
        for (int g : replicas[e - first_expert]) load[g - first_gpu] += per_replica(e);
      return load;
    };
    for (int slot = 0; slot < redundant_per_gpu * p.gpus_per_node; ++slot) {
      int hottest = first_expert;
      for (int e = first_expert; e < last_expert; ++e)
        if (per_replica(e) > per_replica(hottest)) hottest = e;
      const auto load = node_loads();
      int target = -1;
      for (int g = 0; g < p.gpus_per_node; ++g) {
        const auto& holders = replicas[hottest - first_expert];
        if (free_slots[g] == 0 || std::find(holders.begin(), holders.end(), first_gpu + g) != holders.end()) continue;
        if (target < 0 || load[g] < load[target]) target = g;
      }
      if (target < 0) break;  // every GPU of the node already holds it
      // Keep the replica only if it lowers the node's busiest GPU; otherwise the node is done.
      const double before = *std::max_element(load.begin(), load.end());
      replicas[hottest - first_expert].push_back(first_gpu + target);
      const auto trial = node_loads();
      if (*std::max_element(trial.begin(), trial.end()) >= before - 1e-9) {
        replicas[hottest - first_expert].pop_back();
        break;
      }
      --free_slots[target];
    }
    const auto load = node_loads();
    for (int g = 0; g < p.gpus_per_node; ++g) gpu_load[first_gpu + g] = load[g];
  }
  return gpu_load;
}

double max_over_mean(const std::vector<double>& load) {
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / static_cast<double>(load.size());
  return *std::max_element(load.begin(), load.end()) / mean;
}

}  // namespace workload
