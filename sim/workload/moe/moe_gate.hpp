#pragma once
// DeepSeekMoE's gate as in the public inference code (seed 002, "noaux_tc"): sigmoid affinities
// plus a per-expert bias choose the experts; groups (nodes) are ranked by the sum of their two
// best biased scores, the best `groups_per_token` kept, then the top-k experts inside them; the
// weights are the unbiased affinities of the chosen experts, normalised and scaled. The bias
// implements auxiliary-loss-free balancing: after each step, -gamma for overloaded experts and
// +gamma for underloaded ones.
#include <cstdint>
#include <string>
#include <vector>

namespace workload {

struct GateConfig {
  int experts = 256;
  int top_k = 8;
  int groups = 8;            // 1: no group limit
  int groups_per_token = 4;  // M: at most this many groups (nodes) per token
  double routed_scaling = 2.5;
};

struct Routing {
  int tokens = 0;
  int top_k = 0;
  std::vector<int> experts;    // tokens x top_k
  std::vector<float> weights;  // tokens x top_k
  int expert(int token, int k) const { return experts[static_cast<std::size_t>(token) * top_k + k]; }
};

// `affinities`: tokens x experts sigmoid scores; `bias`: one per expert.
Routing route_tokens(const std::vector<float>& affinities, int tokens, const GateConfig& gate,
                     const std::vector<float>& bias);

// Tokens routed to each expert.
std::vector<int> expert_load(const Routing& routing, int experts);

// Auxiliary-loss-free bias update: -gamma where load > mean, +gamma where load < mean.
void update_bias(std::vector<float>& bias, const std::vector<int>& load, float gamma);

enum class AffinitySkew {
  kUniform,     // every expert alike
  kZipf,        // expert popularity falls as 1 / rank^s
  kHotExperts,  // a few experts far more popular than the rest
  // No affinities: every expert given the same tokens, each token's experts dealt in turn across
  // its groups, as DeepSeek's serving profiles simulate routing ("absolutely balanced").
  kBalanced
};

// A scenario's choice of synthetic affinities.
struct AffinityDistribution {
  AffinitySkew skew = AffinitySkew::kUniform;
  double strength = 0;  // Zipf exponent, or the hot experts' logit offset
};

// Seeded synthetic sigmoid affinities: logits = N(0, 1) + popularity(expert), per token.
std::vector<float> synthetic_affinities(int tokens, int experts, AffinitySkew skew, double strength,
                                        std::uint64_t seed);

// route_tokens(synthetic_affinities(tokens, gate.experts, ...), tokens, gate, bias), the same
// routing, without holding every token's affinities: a block of tokens is drawn and routed at a
// time (262,144 tokens of 256 experts are 268 MB of affinities). kBalanced: balanced_routing.
Routing route_synthetic_tokens(int tokens, AffinitySkew skew, double strength, std::uint64_t seed,
                               const GateConfig& gate, const std::vector<float>& bias);

// Routing without a gate, every expert as loaded as the next: token t takes `groups_per_token`
// groups spread evenly from group t (mod groups), and in each its share of top_k experts spread
// evenly over the group from place t / groups; equal weights. Each expert gets the same tokens
// when their number is a multiple of the experts' (within one otherwise).
Routing balanced_routing(int tokens, const GateConfig& gate);

}  // namespace workload
