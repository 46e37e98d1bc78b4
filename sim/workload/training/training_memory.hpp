#pragma once
// Memory one GPU needs for a training step: its shards of the weights, gradients and optimizer
// states by ZeRO stage, the activations it holds at the schedule's peak (counted from the layer
// shapes, for the recomputation chosen), and what the runtime reserves.
#include "workload/training/training_step.hpp"

namespace workload {

// Bytes one GPU keeps from a layer's forward for its backward, for one micro-batch: the GEMM
// inputs (which the weight-gradient pass needs, and which FP8 recipes keep in FP8, as DeepSeek-V3
// does, report §3.3.2, with its experts' SwiGLU inputs in FP8 and their outputs recomputed) and
// the rest (norm inputs, attention statistics, SwiGLU's inputs) in BF16. Flash attention keeps no
// score matrix; unfused attention (TrainingParallelism::unfused_attention) keeps its
// probabilities over the `sequence_tokens` keys, and with dropout their mask and output. With TP and sequence
// parallelism this is Korthikanti et al.'s 34·s·b·h/t per layer for a GPT layer (2022, Table 2, with flash attention's
// 5·a·s/h term gone).
struct ActivationBytes {
  double gemm_inputs = 0, other = 0;
  double total() const { return gemm_inputs + other; }
};
ActivationBytes layer_activation_bytes(const Model& model, bool moe_layer, const TrainingParallelism& par,
                                       double micro_batch_tokens, double sequence_tokens, bool fp8_gemm_inputs);

struct TrainingMemory {
  double weights_B = 0, gradients_B = 0, optimizer_B = 0, activations_B = 0, reserved_B = 0;
  int peak_micro_batches = 0;  // forward chunks held at the peak, on the GPU that needs the most
  double total_B() const { return weights_B + gradients_B + optimizer_B + activations_B + reserved_B; }
};

// The GPU that needs the most. `reserved_B`: CUDA context, NCCL and DeepEP buffers, allocator slack.
TrainingMemory training_memory(const TrainingStep& step, const OptimizerSetup& optimizer, bool fp8_gemm_inputs,
                               double reserved_B);

}  // namespace workload
