#include "hw/gemm_kernel.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/input_error.hpp"

namespace hw {

namespace {

constexpr double kBlockK = 128;                         // the K step: one scale per 128 elements
constexpr double kScaleBytesPerByte = 1.0 / 32;         // a 4-byte FP32 scale per 128 FP8 elements
constexpr double kFp4BytesPerElement = 0.5 + 1.0 / 16;  // NVFP4: 4 bits, and a 1-byte FP8 scale per 16 elements

double ceil_div(double a, double b) { return std::ceil(a / b); }

}  // namespace

const std::vector<std::string>& gemm_precision_names() {
  static const std::vector<std::string> names = {"fp8", "bf16", "fp4"};
  return names;
}

double dense_flops_per_s(const Gpu& gpu, GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::kFp8:
      return gpu.fp8_dense_flops_per_s;
    case GemmPrecision::kFp4:
      return gpu.fp4_dense_flops_per_s;
    case GemmPrecision::kBf16:
      break;
  }
  return gpu.bf16_dense_flops_per_s;
}

double operand_bytes_per_element(GemmPrecision precision) {
  switch (precision) {
    case GemmPrecision::kFp8:
      return 1 + kScaleBytesPerByte;
    case GemmPrecision::kFp4:
      return kFp4BytesPerElement;
    case GemmPrecision::kBf16:
      break;
  }
  return 2;
}

void require_precision(const Gpu& gpu, GemmPrecision precision, const std::string& where) {
  if (dense_flops_per_s(gpu, precision) > 0) return;
  const std::string name = gemm_precision_names()[static_cast<int>(precision)];
  std::string with;
  for (const auto& other : gpu_names())
    if (dense_flops_per_s(gpu_by_name(other), precision) > 0) with += (with.empty() ? "" : ", ") + other;
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  throw core::InputError(where, "true is not allowed; the " + gpu.name + " has no " + upper +
                                    " tensor cores (GPUs that have: " + with + ")");
}

double GemmCalibration::efficiency(GemmKind kind) const {
  return kind == GemmKind::kWeightGradient  ? weight_gradient_efficiency
         : kind == GemmKind::kGroupedMasked ? masked_mma_efficiency
                                            : mma_efficiency;
}

GemmTiling gemm_tiling(const GemmShape& s, int sms, int min_block_m) {
  // DeepGEMM's choice (get_best_configs): BLOCK_M 64 for up to 64 rows (or the library's smallest
  // tile, `min_block_m`), else 128 or 256 (the
  // contiguous layout aligns groups to 128); BLOCK_N from 16 to 256 in steps of 8, at most 128
  // beside BLOCK_M 256. Fewest waves first, then the most tiles in the last wave, then the
  // smaller block where one dimension is equal, else the longer BLOCK_N.
  const bool contiguous = s.kind == GemmKind::kGroupedContiguous;
  const double rows = contiguous ? s.m * s.groups : s.m;
  const double groups = contiguous ? 1 : s.groups;
  std::vector<int> block_ms = contiguous   ? std::vector<int>{128}
                              : rows <= 64 ? std::vector<int>{std::max(64, min_block_m)}
                                           : std::vector<int>{128, 256};
  auto tiles = [&](int bm, int bn) { return ceil_div(rows, bm) * ceil_div(s.n, bn) * groups; };
  auto waves = [&](int bm, int bn) { return ceil_div(tiles(bm, bn), sms); };
  auto last_wave = [&](int bm, int bn) {
    const double r = std::fmod(tiles(bm, bn), sms);
    return r == 0 ? sms : r;
  };
  int best_m = 0, best_n = 0;
  for (int bm : block_ms)
    for (int bn = 16; bn <= 256; bn += 8) {
      if (bm > 128 && bn > 128) continue;
      bool better = best_m == 0;
      if (!better) {
        const double w = waves(bm, bn), best_w = waves(best_m, best_n);
        if (w < best_w)
          better = true;
        else if (w == best_w) {
          const double u = last_wave(bm, bn), best_u = last_wave(best_m, best_n);
          better = u > best_u;
          if (u == best_u)
            better = (bm == best_m && bn < best_n) || (bn == best_n && bm < best_m) || (bm != best_m && bn > best_n);
        }
      }
      if (better) best_m = bm, best_n = bn;
    }
  GemmTiling t;
  t.block_m = best_m;
  t.block_n = best_n;
  t.tiles = tiles(best_m, best_n);
  t.waves = waves(best_m, best_n);
  t.multicast = rows >= 1024 && groups == 1 ? 2 : 1;
  return t;
}

double gemm_seconds(const Gpu& gpu, const GemmShape& s, int sms, const GemmCalibration& c) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0) return 0;
  return gemm_seconds(gpu, s, gemm_tiling(s, sms, c.min_block_m), sms, c);
}

double gemm_seconds(const Gpu& gpu, const GemmShape& s, const GemmTiling& t, int sms, const GemmCalibration& c) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0) return 0;
  const double efficiency = c.efficiency(s.kind);
  if (efficiency <= 0)
    throw std::logic_error("GEMM library has no rows of this kind; require_gemm_kinds refuses it at parse");
  return gemm_time(gpu, s, t, sms, c).seconds;
}

GemmTime gemm_time(const Gpu& gpu, const GemmShape& s, int sms, const GemmCalibration& c) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0) return {};
  return gemm_time(gpu, s, gemm_tiling(s, sms, c.min_block_m), sms, c);
}

GemmTime gemm_time(const Gpu& gpu, const GemmShape& s, const GemmTiling& t, int sms, const GemmCalibration& c) {
  const double efficiency = c.efficiency(s.kind);
  if (efficiency <= 0)
    throw std::logic_error("GEMM library has no rows of this kind; require_gemm_kinds refuses it at parse");
  const double out_bytes = s.kind == GemmKind::kWeightGradient ? 4 : 2;  // FP32 gradients, BF16 activations
  const double sm_flops_per_s = dense_flops_per_s(gpu, s.precision) / gpu.sm_count * efficiency;
  const double operand_bytes = operand_bytes_per_element(s.precision);
  const double hbm_Bps = gpu.hbm_bandwidth_Bps * c.hbm_efficiency;
  const double k_steps = ceil_div(s.k, kBlockK);
  const double mma_step_s = 2 * t.block_m * t.block_n * kBlockK / sm_flops_per_s;
  GemmTime out;
  out.tiling = t;
  double seconds = 0, left = t.tiles;
  for (double w = 0; w < t.waves; ++w) {
    const double in_wave = std::min<double>(sms, left);
    left -= in_wave;
    const double load_step_s = in_wave * (t.block_m + t.block_n / t.multicast) * kBlockK * operand_bytes / c.l2_Bps;
    const double output_s = in_wave * t.block_m * t.block_n * out_bytes / hbm_Bps;
    seconds += c.tile_fill_s + k_steps * std::max(mma_step_s, load_step_s) + output_s;
    (mma_step_s >= load_step_s ? out.mma_s : out.l2_s) += k_steps * std::max(mma_step_s, load_step_s);
    out.fixed_s += c.tile_fill_s + output_s;
  }
  const double rows = s.m * s.groups;
  const double unique_bytes = (rows * s.k + s.groups * s.n * s.k) * operand_bytes + rows * s.n * out_bytes;
  out.hbm_floor_s = unique_bytes / hbm_Bps;
  out.hbm_floor_binds = out.hbm_floor_s > seconds;
  out.fixed_s += c.launch_s;
  out.seconds = c.launch_s + std::max(seconds, out.hbm_floor_s);
  return out;
}

std::string GemmTime::bound() const {
  if (fixed_s > seconds / 2) return "launch";
  if (hbm_floor_binds || l2_s > mma_s) return "memory";
  return "compute";
}

}  // namespace hw
