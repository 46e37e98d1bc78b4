#include <catch2/catch.hpp>

#include <numeric>

#include "workload/moe/expert_placement.hpp"

TEST_CASE("EPLB placement: replicas of the heaviest experts, every GPU the same count, load evened", "[serving]") {
  std::vector<double> load(256, 1.0);
  for (int e = 0; e < 16; ++e) load[static_cast<std::size_t>(e)] = 4.0;  // 16 hot experts
  const auto p = workload::balance_experts(load, 32, 144);
  CHECK(p.slots_per_gpu == 2);
  int slots = 0;
  for (int e = 0; e < 256; ++e) slots += p.replicas(e);
  CHECK(slots == 288);
  CHECK(p.replicas(0) == 3);  // a hot expert's load 4 split thrice (4/3) beats any other's single replica
  CHECK(p.replicas(200) == 1);
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  const double busiest = *std::max_element(p.gpu_load.begin(), p.gpu_load.end());
  CHECK(busiest / (total / 144) < 1.35);
  // Without replicas a GPU holding a hot expert carries 5 against a mean of 2.2.
  std::vector<int> on_gpu(144, 0);
  for (const auto& s : p.expert_slots)
    for (int slot : s) ++on_gpu[static_cast<std::size_t>(slot / p.slots_per_gpu)];
  for (int n : on_gpu) CHECK(n == 2);
}

TEST_CASE("EPLB hierarchical placement: whole groups per node, nodes evened, replicas stay on their group's node",
          "[serving]") {
  std::vector<double> load(256, 1.0);
  for (int e = 0; e < 32; ++e) load[static_cast<std::size_t>(e)] = 3.0;  // group 0 hot
  CHECK(workload::eplb_hierarchical(8, 32, 8));                          // DeepSeek's prefill unit: EP32 over 4 nodes
  CHECK_FALSE(workload::eplb_hierarchical(8, 144, 8));  // its decode unit: 18 nodes do not divide 8 groups
  const auto p = workload::balance_experts_hierarchical(load, 32, 32, 8, 4);
  CHECK(p.slots_per_gpu == 9);
  std::vector<int> on_gpu(32, 0);
  std::vector<double> node_load(4, 0.0);
  for (int e = 0; e < 256; ++e) {
    const int node = p.expert_slots[static_cast<std::size_t>(e)][0] / (9 * 8);
    for (int slot : p.expert_slots[static_cast<std::size_t>(e)]) {
      ++on_gpu[static_cast<std::size_t>(slot / 9)];
      CHECK(slot / (9 * 8) == node);
    }
    // The experts of a group share a node.
    CHECK(node == p.expert_slots[static_cast<std::size_t>(e / 32 * 32)][0] / (9 * 8));
    node_load[static_cast<std::size_t>(node)] += load[static_cast<std::size_t>(e)];
  }
  for (int n : on_gpu) CHECK(n == 9);
  // The hot group (96) shares its node with another (32): 128 against 64 for the others' two
  // groups, the best that whole groups allow.
  CHECK(*std::max_element(node_load.begin(), node_load.end()) == 128);
  CHECK(p.replicas(0) > 1);
  CHECK(p.gpu_load.size() == 32);
}
