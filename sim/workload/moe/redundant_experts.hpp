#pragma once
// Redundant experts (DeepSeek-V3 report §3.4): the hottest experts get extra replicas, placed
// inside the node that already holds them so that no token crosses IB to reach a replica, and
// each expert's tokens split evenly over its replicas. The result is the load per GPU.
#include <vector>

#include "workload/moe/moe_dispatch.hpp"

namespace workload {

// `expert_load`: tokens per expert. Each GPU gets `redundant_per_gpu` extra slots; node by node,
// each slot goes to the expert whose load per replica is then highest, on the node's least
// loaded GPU that has a free slot, as long as that lowers the node's busiest GPU.
std::vector<double> gpu_load_with_redundancy(const std::vector<int>& expert_load, const ExpertPlacement& placement,
                                             int redundant_per_gpu);

// Max over mean of a load vector.
double max_over_mean(const std::vector<double>& load);

}  // namespace workload
