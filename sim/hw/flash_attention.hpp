#pragma once
// Time of FlashAttention-3's forward and backward kernels on a Hopper GPU: one CTA per (batch,
// head, query tile), each looping over the key tiles it needs (all of them, or up to the
// diagonal under a causal mask); a key tile costs the larger of its tensor-core work and its
// softmax (FA3 overlaps the two), plus a fixed step; tiles that cross the diagonal pay for the
// mask; each CTA pays a prologue and epilogue; the CTAs share the SMs evenly. Tile shapes follow
// the head dimension as FA3 picks them (64: 192 x 128, 128: 128 x 176, 192: 128 x 112, 256:
// 128 x 80).
#include "hw/gpu.hpp"

namespace hw {

// Queries attend to keys; under a causal mask the queries are the last `queries` positions of
// the `keys` (a chunk of a sequence after all that precede it).
struct AttentionShape {
  double batch = 1, heads = 1, queries = 0, keys = 0;
  double qk_dim = 128, v_dim = 128;
  bool causal = true;
  // FLOPs as FlashAttention counts them: 2 x (qk + v dims) per query-key pair, the pairs under
  // the mask only; the backward 2.5 times that.
  double forward_flops() const;
};

// Fitted once, all together, to FlashAttention-3's published forward table on H100 SXM5 (36 rows)
// and, for the backward's own three, to its full-mask backward figures (12 rows): `codesim tables
// --only kernels` shows the fit. Efficiencies are of the per-SM BF16 peak at the boost clock.
struct FlashAttentionCalibration {
  double mma_efficiency = 0.778;
  double softmax_s_per_score = 55.2e-12;  // per score element of a tile, on one SM
  double tile_s = 0.23e-6;
  double cta_s = 2.86e-6;
  double mask_s_per_score = 3.07e-12;  // extra, on tiles that cross the diagonal
  double backward_mma_efficiency = 0.69;
  double backward_tile_s = 1.0e-6;
  double backward_cta_s = 12e-6;
};
const FlashAttentionCalibration& flash_attention_3_on_hopper();

double flash_attention_forward_seconds(const Gpu& gpu, const AttentionShape& shape, int sms,
                                       const FlashAttentionCalibration& c = flash_attention_3_on_hopper());
double flash_attention_backward_seconds(const Gpu& gpu, const AttentionShape& shape, int sms,
                                        const FlashAttentionCalibration& c = flash_attention_3_on_hopper());

}  // namespace hw
