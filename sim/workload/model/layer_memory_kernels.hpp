#pragma once
// The memory-bound kernels a transformer layer launches around its GEMMs and attention in
// training, op by op as DeepSeek's framework annotates a MoE layer (attn(F) runs everything
// before the dispatch: the norms, the attention, the router and the cast of the tokens to send),
// each with the bytes it moves per token, counted from the model's shapes: BF16 activations (2
// bytes), FP8 GEMM operands (1 byte and a 4-byte scale per 128), FP32 router scores.
//
// An FP8 recipe adds casts: each GEMM input quantised per token before the forward GEMM; in the
// backward each output gradient quantised per token for the input-gradient GEMM, and the
// weight-gradient GEMM's operands (output gradient and saved input) quantised per channel and
// transposed, since that GEMM's K runs over tokens; and DeepSeek-V3's low-precision caches of
// the attention output (E5M6) and the SwiGLU inputs (FP8) for the backward. A BF16 recipe has
// none of them.
#include <vector>

#include "hw/memory_kernel.hpp"
#include "workload/model/model.hpp"
#include "workload/model/roofline.hpp"

namespace workload {

struct MemoryKernel {
  const char* name;
  hw::MemoryKernelKind kind = hw::MemoryKernelKind::kElementwise;
  // Bytes per token. `hidden`: on full hidden vectors (norms, residuals, the router), which
  // sequence parallelism cuts over TP and which are otherwise repeated on every TP rank;
  // `heads`: on what TP always cuts (heads, FFN columns). `routed_row`: per row a GPU's experts
  // receive (a token once per routed expert it sent to that GPU).
  double hidden_bytes = 0, heads_bytes = 0, routed_row_bytes = 0;
  int launches = 1;  // the kernels it stands for, each with its fixed start and end

  // On one GPU: `tokens` of its micro-batch shard, `routed_rows` received by its experts.
  double bytes(double tokens, double routed_rows, int tp, bool sequence_parallel) const {
    return ((sequence_parallel ? hidden_bytes / tp : hidden_bytes) + heads_bytes / tp) * tokens +
           routed_row_bytes * routed_rows;
  }
};

// Per op of one layer; the ops as training_step.hpp names them.
struct LayerMemoryKernels {
  std::vector<MemoryKernel> attn_forward, attn_backward, mlp_forward, mlp_backward, mlp_weight;
  // Selective recomputation's reruns (every RMSNorm, and what MLA's recomputed up-projections
  // feed the attention), each in a backward op of its layer.
  std::vector<MemoryKernel> attn_recompute, mlp_recompute;
  // What the communication stream runs before combine(B) sends: the gradients' FP8 cast.
  std::vector<MemoryKernel> combine_backward;
};

// Where the layer runs: a training step (the backward's lists and the recipe's activation caches
// too), a prefill or a decode step (forward only; decode's MLA absorbed, so no keys assembled).
enum class LayerPass { kTraining, kPrefill, kDecode };

// `moe`: the layer's FFN is the model's MoE (else its dense FFN); `fp8`: GEMMs in FP8.
LayerMemoryKernels layer_memory_kernels(const Model& m, bool moe, bool fp8, LayerPass pass = LayerPass::kTraining);

// One such kernel's time on a GPU (its `tokens`, the `routed_rows` its experts receive): the
// memory-bound kernel model's floor per launch (on GPUs with FP8 tensor cores, the family it was
// measured on) and its bytes at its kind's fraction of HBM (hw/memory_kernel.hpp, fitted to
// Hopper microbenchmarks), the bytes slowed as the roofline is (beside communication kernels).
// `in_cuda_graph`: replayed in a CUDA graph, each launch's floor less the generation's saving.
double memory_kernel_seconds(const MemoryKernel& k, const Roofline& r, double tokens, double routed_rows, int tp,
                             bool sequence_parallel, bool in_cuda_graph = false);

}  // namespace workload
