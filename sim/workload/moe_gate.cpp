#include "workload/moe_gate.hpp"

#include "core/fast_random.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

namespace workload {

namespace {

// The k best of `candidates` by score, best first (ties to the lower index), by insertion into a
// small sorted buffer that keeps the values beside the indices: k is 8, candidates a few hundred,
// so this beats sorting. k <= kMaxTopK.
constexpr int kMaxTopK = 64;

void top_k(const float* score, const int* candidates, int n, int k, int* out) {
  float value[kMaxTopK];
  int filled = 0;
  for (int i = 0; i < n; ++i) {
    const int c = candidates[i];
    const float v = score[c];
    if (filled == k && !(v > value[k - 1] || (v == value[k - 1] && c < out[k - 1]))) continue;
    int pos = filled < k ? filled++ : k - 1;
    while (pos > 0 && (v > value[pos - 1] || (v == value[pos - 1] && c < out[pos - 1]))) {
      value[pos] = value[pos - 1];
      out[pos] = out[pos - 1];
      --pos;
    }
    value[pos] = v;
    out[pos] = c;
  }
}

// Routes tokens [first, last) into r (already sized).
void route_range(const std::vector<float>& affinities, int first, int last, const GateConfig& g, const std::vector<float>& bias,
                 Routing& r) {
  const int per_group = g.experts / g.groups;
  std::vector<float> biased(g.experts), group_score(g.groups);
  std::vector<int> all_groups(g.groups), chosen_groups(g.groups_per_token), candidates(g.experts), chosen(g.top_k);
  std::iota(all_groups.begin(), all_groups.end(), 0);
  for (int t = first; t < last; ++t) {
    const float* s = affinities.data() + static_cast<std::size_t>(t) * g.experts;
    for (int e = 0; e < g.experts; ++e) biased[e] = s[e] + bias[e];
    int n = 0;
    if (g.groups > 1) {
      // Group score: the sum of the group's two best biased scores.
      for (int grp = 0; grp < g.groups; ++grp) {
        float best = -INFINITY, second = -INFINITY;
        for (int e = grp * per_group; e < (grp + 1) * per_group; ++e) {  // branch-free: scores are random
          const float v = biased[e];
          second = std::max(second, std::min(best, v));
          best = std::max(best, v);
        }
        group_score[grp] = best + (per_group > 1 ? second : 0.0f);
      }
      top_k(group_score.data(), all_groups.data(), g.groups, g.groups_per_token, chosen_groups.data());
      for (int grp : chosen_groups)
        for (int e = grp * per_group; e < (grp + 1) * per_group; ++e) candidates[n++] = e;
    } else {
      for (int e = 0; e < g.experts; ++e) candidates[n++] = e;
    }
    top_k(biased.data(), candidates.data(), n, g.top_k, chosen.data());
    float sum = 0;
    for (int e : chosen) sum += s[e];
    for (int k = 0; k < g.top_k; ++k) {
      const std::size_t i = static_cast<std::size_t>(t) * g.top_k + k;
      r.experts[i] = chosen[k];
      r.weights[i] = static_cast<float>(s[chosen[k]] / (sum + 1e-20f) * g.routed_scaling);
    }
  }
}

}  // namespace

Routing route_tokens(const std::vector<float>& affinities, int tokens, const GateConfig& g, const std::vector<float>& bias) {
  Routing r;
  r.tokens = tokens;
  r.top_k = g.top_k;
  r.experts.resize(static_cast<std::size_t>(tokens) * g.top_k);
  r.weights.resize(r.experts.size());
  // Tokens are routed independently: split them over the cores (each thread writes its own rows,
  // so the result does not depend on the thread count).
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(1, tokens / 4096));
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i)
    workers.emplace_back(route_range, std::cref(affinities), static_cast<int>(static_cast<long long>(tokens) * i / threads),
                         static_cast<int>(static_cast<long long>(tokens) * (i + 1) / threads), std::cref(g), std::cref(bias),
                         std::ref(r));
  route_range(affinities, 0, static_cast<int>(static_cast<long long>(tokens) / threads), g, bias, r);
  for (auto& w : workers) w.join();
  return r;
}

std::vector<int> expert_load(const Routing& r, int experts) {
  std::vector<int> load(experts, 0);
  for (int e : r.experts) ++load[e];
  return load;
}

void update_bias(std::vector<float>& bias, const std::vector<int>& load, float gamma) {
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / static_cast<double>(load.size());
  for (std::size_t e = 0; e < bias.size(); ++e) {
    if (load[e] > mean) bias[e] -= gamma;
    else if (load[e] < mean) bias[e] += gamma;
  }
}

std::vector<float> synthetic_affinities(int tokens, int experts, AffinitySkew skew, double strength, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  core::FastNormal noise(seed);
  std::vector<float> popularity(experts, 0.0f);
  // Which experts are popular is itself seeded, so popularity is not tied to expert index
  // (and so to a node).
  std::vector<int> rank(experts);
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), rng);
  for (int e = 0; e < experts; ++e) {
    if (skew == AffinitySkew::kZipf) popularity[rank[e]] = static_cast<float>(-strength * std::log(1.0 + e));
    if (skew == AffinitySkew::kHotExperts && e < std::max(1, experts / 32)) popularity[rank[e]] = static_cast<float>(strength);
  }
  // Blocks of tokens draw from their own seeded streams, so the values do not depend on how
  // many threads draw them.
  constexpr int kBlock = 1024;
  std::vector<float> a(static_cast<std::size_t>(tokens) * experts);
  auto fill = [&](int first_block, int stride) {
    for (int block = first_block; block * kBlock < tokens; block += stride) {
      core::FastNormal noise(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(block));
      for (int t = block * kBlock; t < std::min(tokens, (block + 1) * kBlock); ++t)
        for (int e = 0; e < experts; ++e) {
          const float logit = static_cast<float>(noise.normal()) + popularity[e];
          a[static_cast<std::size_t>(t) * experts + e] = 1.0f / (1.0f + std::exp(-logit));
        }
    }
  };
  const int blocks = (tokens + kBlock - 1) / kBlock;
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, blocks);
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i) workers.emplace_back(fill, i, threads);
  fill(0, threads);
  for (auto& w : workers) w.join();
  return a;
}

}  // namespace workload
