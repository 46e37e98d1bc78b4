#include <catch2/catch.hpp>
#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "studies/run/scenario.hpp"
#include "workload/moe/comm_kernels.hpp"
#include "workload/moe/moe_dispatch.hpp"
#include "workload/moe/moe_gate.hpp"
#include "workload/moe/routing_memo.hpp"
#include "workload/moe/redundant_experts.hpp"

using namespace workload;

TEST_CASE("group-limited top-k follows the reference gate", "[moe]") {
  // 8 experts in 4 groups of 2; choose 2 groups, then top-3.
  GateConfig g{8, 3, 4, 2, 1.0};
  //                          group 0     group 1     group 2     group 3
  const std::vector<float> a = {0.9f, 0.1f, 0.5f, 0.5f, 0.8f, 0.7f, 0.2f, 0.95f};
  const std::vector<float> no_bias(8, 0.0f);
  // Group scores (top-2 sums): 1.0, 1.0, 1.5, 1.15 -> groups 2 and 3; experts 7, 4, 5.
  const auto r = route_tokens(a, 1, g, no_bias);
  CHECK(std::set<int>(r.experts.begin(), r.experts.end()) == std::set<int>{7, 4, 5});
  CHECK(r.expert(0, 0) == 7);
  const float sum = 0.95f + 0.8f + 0.7f;
  CHECK(r.weights[0] == Approx(0.95f / sum));
  CHECK(std::accumulate(r.weights.begin(), r.weights.end(), 0.0f) == Approx(1.0f));
  // The bias steers the choice but not the weights: lift expert 0's group.
  std::vector<float> bias(8, 0.0f);
  bias[0] = bias[1] = 0.6f;  // group 0 -> 1.5 + 0.7 = 2.2: groups 0 and 2 now
  const auto b = route_tokens(a, 1, g, bias);
  // Biased candidates 0: 1.5, 1: 0.7, 4: 0.8, 5: 0.7 -> 0, 4, then 1 (ties go to the lower index).
  CHECK(std::vector<int>(b.experts.begin(), b.experts.end()) == std::vector<int>{0, 4, 1});
  CHECK(b.weights[0] == Approx(0.9f / (0.9f + 0.8f + 0.1f)));  // weights from the unbiased scores
}

namespace {

// The gate written out plainly: sort groups by their top-2 sum, then the candidates by score
// (ties to the lower index), for holding the fast gate to it.
std::vector<int> reference_gate(const float* score, const GateConfig& g) {
  const int per_group = g.experts / g.groups;
  auto better = [&](int a, int b) { return score[a] > score[b] || (score[a] == score[b] && a < b); };
  std::vector<int> groups(g.groups);
  std::iota(groups.begin(), groups.end(), 0);
  std::vector<float> group_score(g.groups);
  for (int grp = 0; grp < g.groups; ++grp) {
    std::vector<float> v(score + grp * per_group, score + (grp + 1) * per_group);
    std::sort(v.rbegin(), v.rend());
    group_score[grp] = v[0] + (per_group > 1 ? v[1] : 0.0f);
  }
  std::stable_sort(groups.begin(), groups.end(), [&](int a, int b) { return group_score[a] > group_score[b]; });
  std::vector<int> candidates;
  for (int i = 0; i < g.groups_per_token; ++i)
    for (int e = groups[i] * per_group; e < (groups[i] + 1) * per_group; ++e) candidates.push_back(e);
  std::sort(candidates.begin(), candidates.end(), better);
  candidates.resize(g.top_k);
  return candidates;
}

}  // namespace

TEST_CASE("the fast gate chooses what the plain gate chooses, ties included", "[moe]") {
  std::mt19937 rng(11);
  for (const GateConfig g : {GateConfig{256, 8, 8, 4, 2.5}, GateConfig{64, 6, 8, 3, 1}, GateConfig{32, 4, 8, 1, 1},
                             GateConfig{16, 4, 16, 4, 1}, GateConfig{16, 4, 16, 8, 1}, GateConfig{16, 3, 4, 2, 1},
                             GateConfig{24, 5, 1, 1, 1}}) {
    const int tokens = 500;
    // Scores on a coarse grid, so that ties between experts and between groups are common.
    std::uniform_int_distribution<int> level(0, 12);
    std::vector<float> a(static_cast<std::size_t>(tokens) * g.experts), bias(g.experts);
    for (auto& x : a) x = level(rng) / 16.0f;
    for (auto& b : bias) b = (level(rng) - 6) / 64.0f;
    const auto r = route_tokens(a, tokens, g, bias);
    for (int t = 0; t < tokens; ++t) {
      std::vector<float> biased(g.experts);
      for (int e = 0; e < g.experts; ++e) biased[e] = a[static_cast<std::size_t>(t) * g.experts + e] + bias[e];
      const auto want = reference_gate(biased.data(), g);
      const std::vector<int> got(r.experts.begin() + t * g.top_k, r.experts.begin() + (t + 1) * g.top_k);
      INFO("experts " << g.experts << ", top " << g.top_k << ", groups " << g.groups << ", token " << t);
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("node-limited routing never reaches more than M nodes; unrestricted does", "[moe]") {
  const auto a = synthetic_affinities(2000, 256, AffinitySkew::kUniform, 0, 3);
  const std::vector<float> no_bias(256, 0.0f);
  const ExpertPlacement p{64, 8, 256};
  GateConfig limited;  // DeepSeek-V3: 8 groups, 4 per token, top-8
  const auto r = route_tokens(a, 2000, limited, no_bias);
  int most = 0;
  for (int t = 0; t < r.tokens; ++t) {
    std::set<int> nodes;
    for (int k = 0; k < r.top_k; ++k) nodes.insert(p.node_of_gpu(p.gpu_of_expert(r.expert(t, k))));
    most = std::max<int>(most, static_cast<int>(nodes.size()));
  }
  CHECK(most == 4);
  GateConfig unrestricted = limited;
  unrestricted.groups = unrestricted.groups_per_token = 1;
  const auto s_limited = dispatch_stats(r, p);
  const auto s_free = dispatch_stats(route_tokens(a, 2000, unrestricted, no_bias), p);
  CHECK(s_limited.nodes_per_token <= 4);
  CHECK(s_free.nodes_per_token > s_limited.nodes_per_token + 1);
  CHECK(s_limited.experts_per_node * s_limited.nodes_per_token == Approx(8));
}

TEST_CASE("routing synthetic tokens block by block gives the routing of their whole affinity array", "[moe]") {
  // 2,500 tokens: two whole blocks of 1,024 and a partial one; skewed, so popularity is drawn too.
  std::vector<float> bias(256, 0.0f);
  bias[7] = 0.01f;
  const GateConfig g;
  const auto whole = route_tokens(synthetic_affinities(2500, 256, AffinitySkew::kZipf, 0.8, 5), 2500, g, bias);
  const auto blocks = route_synthetic_tokens(2500, AffinitySkew::kZipf, 0.8, 5, g, bias);
  CHECK(blocks.tokens == whole.tokens);
  CHECK(blocks.top_k == whole.top_k);
  CHECK(blocks.experts == whole.experts);
  CHECK(blocks.weights == whole.weights);  // bit for bit
}

TEST_CASE("a kept synthetic routing is the draw's own, drawn once for the same inputs", "[moe]") {
  const GateConfig g;
  const std::vector<float> no_bias(256, 0.0f);
  const auto first = kept_synthetic_routing(1500, AffinitySkew::kUniform, 0, 11, g, no_bias);
  const auto drawn = route_synthetic_tokens(1500, AffinitySkew::kUniform, 0, 11, g, no_bias);
  CHECK(first->experts == drawn.experts);
  CHECK(first->weights == drawn.weights);
  CHECK(kept_synthetic_routing(1500, AffinitySkew::kUniform, 0, 11, g, no_bias) == first);  // the same object
  CHECK(kept_synthetic_routing(1500, AffinitySkew::kUniform, 0, 12, g, no_bias) !=
        first);  // another seed, another draw
  std::vector<float> bias = no_bias;
  bias[3] = 0.5f;
  CHECK(kept_synthetic_routing(1500, AffinitySkew::kUniform, 0, 11, g, bias)->experts != first->experts);
}

TEST_CASE("balanced routing gives every expert the same tokens, each token its groups' share", "[moe]") {
  const GateConfig gate;  // DeepSeek-V3's: 256 experts, top-8, 8 groups, 4 a token
  const Routing r = route_synthetic_tokens(4096, AffinitySkew::kBalanced, 0, 1, gate, {});
  const std::vector<int> load = expert_load(r, gate.experts);
  CHECK(*std::min_element(load.begin(), load.end()) == 4096 * 8 / 256);
  CHECK(*std::max_element(load.begin(), load.end()) == 4096 * 8 / 256);
  for (int t = 0; t < r.tokens; ++t) {
    std::set<int> experts, groups;
    for (int k = 0; k < r.top_k; ++k) {
      experts.insert(r.expert(t, k));
      groups.insert(r.expert(t, k) / 32);
    }
    CHECK(experts.size() == 8);
    CHECK(groups.size() == 4);  // as many as the group limit allows, spread over the nodes
  }
  // A shape that does not split by groups: experts dealt in turn, still each as loaded.
  const GateConfig odd{60, 6, 7, 3, 1.0};
  const std::vector<int> odd_load = expert_load(balanced_routing(600, odd), odd.experts);
  CHECK(*std::min_element(odd_load.begin(), odd_load.end()) == 60);
  CHECK(*std::max_element(odd_load.begin(), odd_load.end()) == 60);
}

TEST_CASE("dispatch crosses IB once per remote node, then fans out over NVLink", "[moe]") {
  // One token on GPU 0 (node 0), experts on GPUs 8, 9 (node 1) and 1 (node 0): 2 experts per GPU.
  Routing r;
  r.tokens = 1;
  r.top_k = 4;
  r.experts = {16, 18, 19, 2};  // GPUs 8, 9, 9, 1
  r.weights.assign(4, 0.25f);
  const ExpertPlacement p{16, 8, 32};
  const auto s = dispatch_stats(r, p);
  CHECK(s.nodes_per_token == 2);
  CHECK(s.ib_copies_per_token == 1);      // to GPU 8 (same in-node index 0) on node 1
  CHECK(s.nvlink_copies_per_token == 2);  // GPU 8 -> 9 on node 1; GPU 0 -> 1 on node 0
  const auto d = dispatch_traffic(r, p, 100);
  CHECK(d.ib[0][8] == 100);
  CHECK(d.nvlink[8][9] == 100);
  CHECK(d.nvlink[0][1] == 100);
  double total = 0;
  for (const auto& row : d.ib) total += std::accumulate(row.begin(), row.end(), 0.0);
  CHECK(total == 100);
}

TEST_CASE("the bias update balances skewed expert load", "[moe]") {
  const auto a = synthetic_affinities(4096, 256, AffinitySkew::kHotExperts, 1.5, 9);
  std::vector<float> bias(256, 0.0f);
  GateConfig g;
  auto imbalance = [&] {
    const auto load = expert_load(route_tokens(a, 4096, g, bias), 256);
    return *std::max_element(load.begin(), load.end()) / (4096.0 * 8 / 256);
  };
  const double before = imbalance();
  for (int step = 0; step < 30; ++step) update_bias(bias, expert_load(route_tokens(a, 4096, g, bias), 256), 0.002f);
  CHECK(before > 4);
  CHECK(imbalance() < before / 3);
}

TEST_CASE("redundant experts inside a node even out its GPUs without moving load across nodes", "[moe]") {
  const workload::ExpertPlacement p{16, 8, 64};  // 2 nodes of 8 GPUs, 4 experts each
  std::vector<int> load(64, 10);
  load[0] = 200;  // one hot expert on GPU 0
  const auto before = workload::gpu_load_with_redundancy(load, p, 0);
  const auto after = workload::gpu_load_with_redundancy(load, p, 1);
  CHECK(before[0] == Approx(230));
  CHECK(workload::max_over_mean(after) < workload::max_over_mean(before));
  // Node totals are unchanged: replicas stay in their node.
  auto node_sum = [](const std::vector<double>& l, int node) {
    return std::accumulate(l.begin() + node * 8, l.begin() + node * 8 + 8, 0.0);
  };
  CHECK(node_sum(after, 0) == Approx(node_sum(before, 0)));
  CHECK(node_sum(after, 1) == Approx(node_sum(before, 1)));
  // Balanced load stays balanced.
  CHECK(workload::max_over_mean(workload::gpu_load_with_redundancy(std::vector<int>(64, 10), p, 1)) == Approx(1.0));
}

TEST_CASE("communication kernels reach channels x the channel rate, up to the link; zero SMs offload", "[moe]") {
  CommKernels k;  // 20 SMs, 2 per channel, 5 GB/s IB and 16 GB/s NVLink per channel
  CHECK(k.channels() == 10);
  CHECK(k.ib_Bps(50e9) == Approx(50e9));
  CHECK(k.nvlink_Bps(160e9) == Approx(160e9));
  CHECK(k.ib_Bps(100e9) == Approx(50e9));  // a faster NIC needs more channels
  k.sms = 8;
  CHECK(k.ib_Bps(50e9) == Approx(20e9));
  CHECK(k.nvlink_Bps(160e9) == Approx(64e9));
  k.sms = 0;
  CHECK(k.offloaded());
  CHECK(k.ib_Bps(50e9) == Approx(50e9));
}

TEST_CASE("Dispatch bandwidth grows with the channels up to 20 SMs, then holds", "[moe][scenario]") {
  const auto report = studies::load_scenario("scenarios/paper/moe-3-dispatch-sms.json").run({});
  auto bw = [&](int sms) {
    for (const auto& r : report.rows)
      if (r.id == "ep64-sms" + std::to_string(sms) + "/dispatch_bw") return r.ours;
    FAIL("no row for " << sms << " SMs");
    return 0.0;
  };
  CHECK(bw(8) == Approx(bw(20) * 8 / 20).epsilon(1e-6));  // IB-bound: linear in the channels
  CHECK(bw(24) == Approx(bw(20)));                        // the NIC is full
  CHECK(bw(20) > 40);                                     // ISCA'25 Figure 7: above 40 GB/s
}
