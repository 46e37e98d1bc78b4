#include "hw/flash_attention.hpp"

#include <algorithm>
#include <cmath>

#include "hw/attention_backend.hpp"

namespace hw {

namespace {

struct Tile {
  double m, n;
};

Tile tile(AttentionTiles tiles, double qk_dim) {
  if (tiles == AttentionTiles::kFa4) return {128, 128};
  if (tiles == AttentionTiles::kFa2) return qk_dim <= 64 ? Tile{128, 128} : Tile{128, 64};
  if (qk_dim <= 64) return {192, 128};
  if (qk_dim <= 128) return {128, 176};
  if (qk_dim <= 192) return {128, 112};
  return {128, 80};
}

constexpr double kBf16Bytes = 2;

}  // namespace

double AttentionShape::forward_flops() const {
  double pairs = queries * keys;
  if (causal) pairs = queries * (keys - queries) + queries * (queries + 1) / 2;
  return 2 * pairs * (qk_dim + v_dim) * batch * heads;
}

const FlashAttentionCalibration& flash_attention_3_on_hopper() {
  return attention_backend("fa3", "attention backend").flash;
}

// Per-tile and per-CTA costs of one pass; the backward's tensor-core work is 2.5 times the
// forward's.
AttentionTime flash_attention_time(const Gpu& gpu, const AttentionShape& s, int sms, bool backward,
                                   const FlashAttentionCalibration& c) {
  AttentionTime out;
  if (s.queries <= 0 || s.keys <= 0 || s.batch <= 0 || s.heads <= 0) return out;
  const double efficiency = backward ? c.backward_mma_efficiency : c.mma_efficiency;
  const double tile_s = backward ? c.backward_tile_s : c.tile_s, cta_s = backward ? c.backward_cta_s : c.cta_s;
  const double work = backward ? 2.5 : 1.0;
  const Tile t = tile(c.tiles, s.qk_dim);
  const double sm_flops_per_s = gpu.bf16_dense_flops_per_s / gpu.sm_count * efficiency;
  const double mma_s = work * 2 * t.m * t.n * (s.qk_dim + s.v_dim) / sm_flops_per_s;
  const double softmax_s = t.m * t.n * c.softmax_s_per_score;
  const double step_s = (c.overlap_softmax ? std::max(mma_s, softmax_s) : mma_s + softmax_s) + tile_s;
  const double offset = s.keys - s.queries;  // keys before the first query
  // Decode: the query heads of a KV head share one query tile (their rows side by side).
  const double group = s.heads / s.key_value_heads();
  out.packed_gqa = group > 1 && queries_fit_one_tile(s, c);
  const double heads = out.packed_gqa ? s.key_value_heads() : s.heads;
  const double query_tiles = std::ceil((out.packed_gqa ? s.queries * group : s.queries) / t.m);
  // A grid of one query tile per head smaller than the GPU: the keys split over the idle SMs.
  const double grid = s.batch * heads * query_tiles;
  if (query_tiles == 1 && grid < sms)
    out.splits = static_cast<int>(std::max(1.0, std::min(std::floor(sms / grid), std::ceil(s.keys / t.n))));
  double total = 0, longest = 0;
  for (double q = 0; q < query_tiles; ++q) {
    double tiles = std::ceil(s.keys / t.n), diagonal = 0;
    if (s.causal) {
      const double lo = offset + (out.packed_gqa ? 0 : q * t.m),
                   hi = out.packed_gqa ? s.keys : std::min(s.keys, offset + (q + 1) * t.m);
      tiles = std::ceil(hi / t.n);
      diagonal = tiles - std::floor(lo / t.n);
    }
    const double fixed = cta_s + tiles * tile_s + diagonal * t.m * t.n * c.mask_s_per_score;
    const double cta = cta_s + tiles * step_s + diagonal * t.m * t.n * c.mask_s_per_score;
    total += cta + (out.splits - 1) * cta_s;
    longest =
        std::max(longest, cta_s + std::ceil(tiles / out.splits) * step_s + diagonal * t.m * t.n * c.mask_s_per_score);
    out.key_tiles = std::max(out.key_tiles, tiles);
    if (c.overlap_softmax) {
      (mma_s >= softmax_s ? out.mma_s : out.softmax_s) += tiles * std::max(mma_s, softmax_s);
    } else {
      out.mma_s += tiles * mma_s;
      out.softmax_s += tiles * softmax_s;
    }
    out.fixed_s += fixed + (out.splits - 1) * cta_s;
  }
  const double per_head = s.batch * heads;
  out.mma_s *= per_head;
  out.softmax_s *= per_head;
  out.fixed_s *= per_head;
  out.ctas = per_head * query_tiles * out.splits;
  out.waves = std::ceil(out.ctas / sms);
  // Q, K and V read and the output written once; the backward reads them with the output's
  // gradient and writes the three gradients: about twice the bytes.
  const double bytes =
      kBf16Bytes * s.batch *
      (s.heads * s.queries * (s.qk_dim + s.v_dim) + s.key_value_heads() * s.keys * (s.qk_dim + s.v_dim));
  if (c.hbm_Bps > 0)
    out.hbm_floor_s = (backward ? 2 : 1) * bytes / (gpu.hbm_bandwidth_Bps * (c.hbm_Bps / c.measured_hbm_Bps));
  const double compute_s = std::max(total * s.batch * heads / sms, longest);
  out.hbm_floor_binds = out.hbm_floor_s > compute_s;
  out.seconds = std::max(compute_s, out.hbm_floor_s);
  return out;
}

bool queries_fit_one_tile(const AttentionShape& s, const FlashAttentionCalibration& c) {
  return s.queries * s.heads / s.key_value_heads() <= tile(c.tiles, s.qk_dim).m;
}

std::string AttentionTime::bound() const {
  if (hbm_floor_binds) return "memory";
  if (fixed_s > (mma_s + softmax_s + fixed_s) / 2) return "launch";
  return "compute";
}

double flash_attention_forward_seconds(const Gpu& gpu, const AttentionShape& s, int sms,
                                       const FlashAttentionCalibration& c) {
  return flash_attention_time(gpu, s, sms, false, c).seconds;
}

double flash_attention_backward_seconds(const Gpu& gpu, const AttentionShape& s, int sms,
                                        const FlashAttentionCalibration& c) {
  return flash_attention_time(gpu, s, sms, true, c).seconds;
}

}  // namespace hw
