#include "workload/model/training_flops.hpp"

namespace workload {

TrainingFlops training_flops_per_token(const Model& model, double sequence_tokens, AttentionMask mask) {
  TrainingFlops f;
  for (const auto& layer : layer_costs(model)) {
    f.layers_matmul += kTrainingToForwardFlops * layer.matmul_flops_per_token;
    f.attention +=
        kTrainingToForwardFlops * layer.attention_flops_per_token(layer.mean_attended_tokens(sequence_tokens, mask));
  }
  f.lm_head = kTrainingToForwardFlops * 2.0 * double(model.vocab) * model.hidden;  // tied or not, the head multiplies
  return f;
}

}  // namespace workload
