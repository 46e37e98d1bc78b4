#pragma once
// How popular each routed expert is, layer by layer: each MoE layer's share of the top-k
// selections per expert, as measured over a serving run (SGLang's per-expert counts,
// ../shared/expert-load/) or as a derived summary of them (data/expert_popularity/). From it a
// step draws its tokens' experts, EPLB makes its plan, and a GPU's expected number of experts
// touched by a few tokens follows.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/moe/moe_gate.hpp"

namespace workload {

struct ExpertPopularity {
  std::string source;                       // the file it came from
  std::vector<std::vector<double>> layers;  // per MoE layer (in model order), each expert's share; each sums to 1
  // The layer `moe_layer` of a model's MoE layers; a model with more MoE layers than the file
  // (an MTP module) takes the last layer's.
  const std::vector<double>& layer(int moe_layer) const;
};

// SGLang's counts as shipped: {"logical_count": [[count per expert] x layers]} or a bare
// [[...] x layers], `layers` the model's (dense layers' rows all zero, dropped) and `experts` its
// routed experts. `pointer`: the scenario field naming the file; errors name it and the file's
// own path, the value and what is allowed (InputError, exit 2).
ExpertPopularity read_expert_counts(const std::string& path, int layers, int dense_layers, int experts,
                                    const std::string& pointer);

// A derived summary (data/expert_popularity/*.json, made by analysis/expert_popularity_summary.py):
// per MoE layer, each expert's load over the mean at a few ranks, hottest first; between the
// ranks the curve is linear. The experts' identities are not kept: each layer's ranks go to
// experts in an order drawn from `seed`.
ExpertPopularity popularity_from_summary(const nlohmann::json& doc, const std::string& path, const std::string& phase,
                                         int moe_layers, int experts, std::uint64_t seed, const std::string& pointer);

// `tokens` tokens, each choosing `top_k` distinct experts, each expert about top_k x its share of
// them (drawn one by one, again where already chosen, with weights that make up for it). The
// first n tokens of a longer draw with the same seed are the draw of n tokens.
Routing draw_routing(const std::vector<double>& shares, int tokens, int top_k, std::uint64_t seed);
// Grows `routing` (a draw of the same shares and seed) to `tokens`, keeping what it has.
void extend_routing(Routing& routing, const std::vector<double>& shares, int tokens, int top_k, std::uint64_t seed);

// Expected number of experts that at least one of `tokens` tokens chooses, where a token chooses
// expert e with probability inclusion[e] (top-k routing: top_k x its share).
double expected_experts_touched(const std::vector<double>& inclusion, double tokens);

// The hottest expert's share over the mean share, per layer.
double hottest_over_mean(const std::vector<double>& shares);

}  // namespace workload
