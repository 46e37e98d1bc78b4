#pragma once
// Attention as Megatron-LM ran it before FlashAttention (SC'21: CoreAttention with the fused
// scale-mask-softmax of megatron/fused_kernels): every query's score against every key written to
// HBM and read back. Forward: Q·Kᵀ as a batched GEMM over the heads, the fused scale-mask-softmax
// (a row reduction reading and writing each score), dropout on the probabilities where the run
// has it (an element-wise kernel writing a byte mask beside them), and P·V as a batched GEMM.
// Backward: dP = dO·Vᵀ and dV = Pᵀ·dO, dropout's backward, softmax's backward (reading the
// probabilities and their gradient), then dQ = dS·K and dK = dSᵀ·Q. The whole square is computed
// and stored, the causal mask applied inside the softmax. The GEMMs are timed by the GPU's kernel
// model in BF16/FP16 (the roofline where it has none), the rest by its memory-bound fit: the
// parts of attention that FlashAttention fuses away, each as measured on its own.
#include <vector>

#include "workload/model/roofline.hpp"
#include "workload/profile/kernel_class.hpp"

namespace workload {

// One GPU's share of one micro-batch's attention: `heads` of its TP shard.
struct UnfusedAttentionShape {
  double sequences = 1, heads = 1, tokens = 1;  // tokens per sequence: queries and keys alike
  double qk_head_dim = 128, v_head_dim = 128;
  bool dropout = false;
};

struct UnfusedAttention {
  std::vector<KernelTime> forward, backward;  // in the order they run
  double forward_s() const;
  double backward_s() const;
};

// `sms`: the SMs the GEMMs run on; `r` already slowed beside communication kernels.
UnfusedAttention unfused_attention(const Roofline& r, const UnfusedAttentionShape& shape, int sms);

// Bytes per token a layer keeps for the backward beyond FlashAttention's (Korthikanti et al. 2022,
// §4.1): the softmax's output (2 a s bytes a token for a heads over s keys), and with dropout its
// mask and output (3 a s more).
double unfused_attention_activation_bytes_per_token(double heads, double tokens, bool dropout);

}  // namespace workload
