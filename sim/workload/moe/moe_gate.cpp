#include "workload/moe/moe_gate.hpp"

#include "core/fast_random.hpp"

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <functional>
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

// The two largest of v[0, n) (second = -inf when n = 1), without branches: the scores are
// random, so a branch on them would be mispredicted half the time. Lanes keep independent
// (best, second) pairs, merged at the end: the top two of {b0, s0, b1, s1} with b >= s in each
// pair are max(b0, b1) and max(min(b0, b1), s0, s1).
void top_2(const float* v, int n, float& best_out, float& second_out) {
  float best = -INFINITY, second = -INFINITY;
  int i = 0;
#if defined(__SSE2__)
  if (n >= 8) {
    __m128 b0 = _mm_set1_ps(-INFINITY), b1 = b0, s0 = b0, s1 = b0;
    for (; i + 8 <= n; i += 8) {
      const __m128 v0 = _mm_loadu_ps(v + i), v1 = _mm_loadu_ps(v + i + 4);
      s0 = _mm_max_ps(s0, _mm_min_ps(b0, v0));
      s1 = _mm_max_ps(s1, _mm_min_ps(b1, v1));
      b0 = _mm_max_ps(b0, v0);
      b1 = _mm_max_ps(b1, v1);
    }
    auto merge = [](__m128& b, __m128& s, __m128 ob, __m128 os) {
      s = _mm_max_ps(_mm_min_ps(b, ob), _mm_max_ps(s, os));
      b = _mm_max_ps(b, ob);
    };
    merge(b0, s0, b1, s1);                                                // 8 lanes -> 4
    merge(b0, s0, _mm_movehl_ps(b0, b0), _mm_movehl_ps(s0, s0));          // -> 2
    merge(b0, s0, _mm_shuffle_ps(b0, b0, 1), _mm_shuffle_ps(s0, s0, 1));  // -> 1
    best = _mm_cvtss_f32(b0);
    second = _mm_cvtss_f32(s0);
  }
#endif
  for (; i < n; ++i) {
    second = std::max(second, std::min(best, v[i]));
    best = std::max(best, v[i]);
  }
  best_out = best;
  second_out = second;
}

// Writes the indices e in [first, last) with v[e] >= floor to out; returns how many. (Every
// store stays inside out[0, last - first).) Four scores are compared at once and their passing
// indices written without a branch: a table gives, for each 4-bit mask, the passing lanes packed
// first; all four slots are stored and the count advances by the mask's population.
int at_least(const float* v, int first, int last, float floor, int* out) {
  int n = 0, e = first;
#if defined(__SSE2__)
  alignas(16) static constexpr int kPacked[16][4] = {
      {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
      {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0}, {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
  static constexpr int kCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};  // no popcnt in baseline x86-64
  const __m128 f = _mm_set1_ps(floor);
  for (; e + 4 <= last; e += 4) {
    const int mask = _mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(v + e), f));
    const __m128i lanes = _mm_load_si128(reinterpret_cast<const __m128i*>(kPacked[mask]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + n), _mm_add_epi32(lanes, _mm_set1_epi32(e)));
    n += kCount[mask];
  }
#endif
  for (; e < last; ++e) {
    out[n] = e;
    n += v[e] >= floor;
  }
  return n;
}

// Routes tokens [first, last) into r (already sized); `rows` holds token first's affinities, then the next token's.
void route_range(const float* rows, int first, int last, const GateConfig& g, const std::vector<float>& bias,
                 Routing& r) {
  const int per_group = g.experts / g.groups;
  const int kept_per_group = std::min(per_group, 2);
  std::vector<float> biased(g.experts), best(g.groups), second(g.groups), group_score(g.groups), kept;
  std::vector<int> all_groups(g.groups), chosen_groups(g.groups_per_token), candidates(g.experts), chosen(g.top_k);
  std::iota(all_groups.begin(), all_groups.end(), 0);
  for (int t = first; t < last; ++t) {
    const float* s = rows + static_cast<std::size_t>(t - first) * g.experts;
    for (int e = 0; e < g.experts; ++e) biased[e] = s[e] + bias[e];
    int n = 0;
    if (g.groups > 1) {
      // Group score: the sum of the group's two best biased scores.
      for (int grp = 0; grp < g.groups; ++grp)
        top_2(biased.data() + static_cast<std::size_t>(grp) * per_group, per_group, best[grp], second[grp]);
      for (int grp = 0; grp < g.groups; ++grp) group_score[grp] = best[grp] + (per_group > 1 ? second[grp] : 0.0f);
      top_k(group_score.data(), all_groups.data(), g.groups, g.groups_per_token, chosen_groups.data());
      // The chosen groups' two best scores are known; when there are at least top_k of them, the
      // top_k-th largest is a floor no chosen expert lies below, and few candidates reach it.
      kept.clear();
      for (int grp : chosen_groups) {
        kept.push_back(best[grp]);
        if (kept_per_group > 1) kept.push_back(second[grp]);
      }
      float floor = -INFINITY;
      if (static_cast<int>(kept.size()) >= g.top_k) {
        std::nth_element(kept.begin(), kept.begin() + (g.top_k - 1), kept.end(), std::greater<float>());
        floor = kept[g.top_k - 1];
      }
      for (int grp : chosen_groups)
        n += at_least(biased.data(), grp * per_group, (grp + 1) * per_group, floor, candidates.data() + n);
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

Routing route_tokens(const std::vector<float>& affinities, int tokens, const GateConfig& g,
                     const std::vector<float>& bias) {
  Routing r;
  r.tokens = tokens;
  r.top_k = g.top_k;
  r.experts.resize(static_cast<std::size_t>(tokens) * g.top_k);
  r.weights.resize(r.experts.size());
  // Tokens are routed independently: split them over the cores (each thread writes its own rows,
  // so the result does not depend on the thread count).
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(1, tokens / 4096));
  std::vector<std::thread> workers;
  auto range = [&](int i) {
    const int first = static_cast<int>(static_cast<long long>(tokens) * i / threads);
    route_range(affinities.data() + static_cast<std::size_t>(first) * g.experts, first,
                static_cast<int>(static_cast<long long>(tokens) * (i + 1) / threads), g, bias, r);
  };
  for (int i = 1; i < threads; ++i) workers.emplace_back(range, i);
  range(0);
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
    if (load[e] > mean)
      bias[e] -= gamma;
    else if (load[e] < mean)
      bias[e] += gamma;
  }
}

namespace {

// Blocks of tokens draw from their own seeded streams, so the values do not depend on how many
// threads draw them, nor on whether they are kept.
constexpr int kAffinityBlock = 1024;

// Each expert's logit offset. Which experts are popular is itself seeded, so popularity is not
// tied to expert index (and so to a node).
std::vector<float> expert_popularity(int experts, AffinitySkew skew, double strength, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> popularity(experts, 0.0f);
  std::vector<int> rank(experts);
  std::iota(rank.begin(), rank.end(), 0);
  std::shuffle(rank.begin(), rank.end(), rng);
  for (int e = 0; e < experts; ++e) {
    if (skew == AffinitySkew::kZipf) popularity[rank[e]] = static_cast<float>(-strength * std::log(1.0 + e));
    if (skew == AffinitySkew::kHotExperts && e < std::max(1, experts / 32))
      popularity[rank[e]] = static_cast<float>(strength);
  }
  return popularity;
}

// Block `block`'s tokens' affinities, a row per token, into `out`; returns its tokens.
int draw_affinity_block(const std::vector<float>& popularity, std::uint64_t seed, int block, int tokens, float* out) {
  const int experts = static_cast<int>(popularity.size());
  core::FastNormal noise(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(block));
  const int first = block * kAffinityBlock, last = std::min(tokens, first + kAffinityBlock);
  for (int t = first; t < last; ++t)
    for (int e = 0; e < experts; ++e) {
      const float logit = static_cast<float>(noise.normal()) + popularity[e];
      out[static_cast<std::size_t>(t - first) * experts + e] = 1.0f / (1.0f + std::exp(-logit));
    }
  return last - first;
}

// Runs work(block) for every block of `tokens`, the blocks dealt over the cores in turn.
void for_each_block(int tokens, const std::function<void(int)>& work) {
  const int blocks = (tokens + kAffinityBlock - 1) / kAffinityBlock;
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(1, blocks));
  auto deal = [&](int first) {
    for (int block = first; block < blocks; block += threads) work(block);
  };
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i) workers.emplace_back(deal, i);
  deal(0);
  for (auto& w : workers) w.join();
}

}  // namespace

std::vector<float> synthetic_affinities(int tokens, int experts, AffinitySkew skew, double strength,
                                        std::uint64_t seed) {
  const auto popularity = expert_popularity(experts, skew, strength, seed);
  std::vector<float> a(static_cast<std::size_t>(tokens) * experts);
  for_each_block(tokens, [&](int block) {
    draw_affinity_block(popularity, seed, block, tokens,
                        a.data() + static_cast<std::size_t>(block) * kAffinityBlock * experts);
  });
  return a;
}

Routing balanced_routing(int tokens, const GateConfig& g) {
  Routing r;
  r.tokens = tokens;
  r.top_k = g.top_k;
  r.experts.resize(static_cast<std::size_t>(tokens) * g.top_k);
  r.weights.assign(r.experts.size(), static_cast<float>(g.routed_scaling / g.top_k));
  const int groups = std::max(1, g.groups), size = g.experts / groups;
  const int chosen = std::clamp(g.groups_per_token, 1, groups), per_group = g.top_k / chosen;
  const bool even = g.experts % groups == 0 && g.top_k % chosen == 0 && per_group <= size;
  for (int t = 0; t < tokens; ++t)
    for (int k = 0; k < g.top_k; ++k) {
      int e = (t * g.top_k + k) % g.experts;  // (shapes that do not split: dealt in turn)
      if (even) {
        const int i = k / per_group, j = k % per_group;
        const int group = (t + i * groups / chosen) % groups;
        e = group * size + (t / groups + j * size / per_group) % size;
      }
      r.experts[static_cast<std::size_t>(t) * g.top_k + k] = e;
    }
  return r;
}

Routing route_synthetic_tokens(int tokens, AffinitySkew skew, double strength, std::uint64_t seed, const GateConfig& g,
                               const std::vector<float>& bias) {
  if (skew == AffinitySkew::kBalanced) return balanced_routing(tokens, g);
  const auto popularity = expert_popularity(g.experts, skew, strength, seed);
  Routing r;
  r.tokens = tokens;
  r.top_k = g.top_k;
  r.experts.resize(static_cast<std::size_t>(tokens) * g.top_k);
  r.weights.resize(r.experts.size());
  for_each_block(tokens, [&](int block) {
    thread_local std::vector<float> rows;
    rows.resize(static_cast<std::size_t>(kAffinityBlock) * g.experts);
    const int n = draw_affinity_block(popularity, seed, block, tokens, rows.data());
    route_range(rows.data(), block * kAffinityBlock, block * kAffinityBlock + n, g, bias, r);
  });
  return r;
}

}  // namespace workload
