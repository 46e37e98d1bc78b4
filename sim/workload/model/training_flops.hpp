#pragma once
// Training FLOPs per token: forward + backward = 3 x forward, where the forward is one
// multiply-add (2 FLOPs) per active non-embedding weight, the LM head, and attention's score
// and value products over the sequence (causal: the lower triangle only). The embedding is a
// lookup and costs no FLOPs; MTP modules are left out, as in ISCA'25 Table 2.
#include "workload/model/layer_cost.hpp"
#include "workload/model/model.hpp"

namespace workload {

struct TrainingFlops {
  double layers_matmul = 0;  // per token, forward + backward
  double lm_head = 0;
  double attention = 0;

  double total() const { return layers_matmul + lm_head + attention; }
};

// Forward + backward costs three forwards (the backward computes input and weight gradients).
inline constexpr double kTrainingToForwardFlops = 3.0;

TrainingFlops training_flops_per_token(const Model& model, double sequence_tokens, AttentionMask mask);

}  // namespace workload
