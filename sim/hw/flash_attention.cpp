#include "hw/flash_attention.hpp"

#include <algorithm>
#include <cmath>

namespace hw {

namespace {

struct Tile {
  double m, n;
};

Tile fa3_tile(double qk_dim) {
  if (qk_dim <= 64) return {192, 128};
  if (qk_dim <= 128) return {128, 176};
  if (qk_dim <= 192) return {128, 112};
  return {128, 80};
}

// Per-tile and per-CTA costs of one pass; `work` scales the tensor-core work (2.5 backward).
double pass_seconds(const Gpu& gpu, const AttentionShape& s, int sms, double efficiency, double tile_s, double cta_s,
                    const FlashAttentionCalibration& c, double work) {
  if (s.queries <= 0 || s.keys <= 0 || s.batch <= 0 || s.heads <= 0) return 0;
  const Tile t = fa3_tile(s.qk_dim);
  const double sm_flops_per_s = gpu.bf16_dense_flops_per_s / gpu.sm_count * efficiency;
  const double mma_s = work * 2 * t.m * t.n * (s.qk_dim + s.v_dim) / sm_flops_per_s;
  const double step_s = std::max(mma_s, t.m * t.n * c.softmax_s_per_score) + tile_s;
  const double offset = s.keys - s.queries;  // keys before the first query
  const double query_tiles = std::ceil(s.queries / t.m);
  double total = 0, longest = 0;
  for (double q = 0; q < query_tiles; ++q) {
    double tiles = std::ceil(s.keys / t.n), diagonal = 0;
    if (s.causal) {
      const double lo = offset + q * t.m, hi = std::min(s.keys, offset + (q + 1) * t.m);
      tiles = std::ceil(hi / t.n);
      diagonal = tiles - std::floor(lo / t.n);
    }
    const double cta = cta_s + tiles * step_s + diagonal * t.m * t.n * c.mask_s_per_score;
    total += cta;
    longest = std::max(longest, cta);
  }
  return std::max(total * s.batch * s.heads / sms, longest);
}

}  // namespace

double AttentionShape::forward_flops() const {
  double pairs = queries * keys;
  if (causal) pairs = queries * (keys - queries) + queries * (queries + 1) / 2;
  return 2 * pairs * (qk_dim + v_dim) * batch * heads;
}

const FlashAttentionCalibration& flash_attention_3_on_hopper() {
  static const FlashAttentionCalibration c;
  return c;
}

double flash_attention_forward_seconds(const Gpu& gpu, const AttentionShape& s, int sms, const FlashAttentionCalibration& c) {
  return pass_seconds(gpu, s, sms, c.mma_efficiency, c.tile_s, c.cta_s, c, 1.0);
}

double flash_attention_backward_seconds(const Gpu& gpu, const AttentionShape& s, int sms, const FlashAttentionCalibration& c) {
  return pass_seconds(gpu, s, sms, c.backward_mma_efficiency, c.backward_tile_s, c.backward_cta_s, c, 2.5);
}

}  // namespace hw
