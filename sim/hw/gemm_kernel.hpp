#pragma once
// Time of an FP8 GEMM with fine-grained scaling on a Hopper GPU, as DeepGEMM runs it: output
// tiles of BLOCK_M x BLOCK_N chosen as DeepGEMM chooses them (fewest waves over the free SMs,
// then the fullest last wave), waves of tiles over the SMs, each tile a K loop of 128-wide steps
// bound by its tensor cores or by loading its operands from L2, a fill per tile and its output
// written to HBM; never faster than the unique bytes over HBM. Kinds: dense, grouped with
// contiguous rows (the MoE in training and prefill), grouped masked (decode) and the
// weight-gradient GEMM (FP32 output, its own kernel).
#include <string>
#include <vector>

#include "hw/gpu.hpp"

namespace hw {

enum class GemmKind { kDense, kGroupedContiguous, kGroupedMasked, kWeightGradient };

// The operands: FP8 with a 4-byte scale per 128 elements, or BF16 (the same tiles, at the BF16
// tensor-core rate, two bytes per element and no scales). The constants are fitted to FP8
// kernels; most of their efficiency is the clock under load (about 1600 of 1830 MHz, kernels.md),
// which BF16 kernels share, so BF16 GEMMs take them as they are: an assumption, as no BF16 GEMM
// table is published beside DeepGEMM's.
// FP4 (Blackwell's NVFP4: E2M1 elements with an FP8 scale per 16) runs the same tiles at the FP4
// tensor-core rate, half a byte per element and its scales, with the constants of an FP4 library
// (data/gemm_libraries/: cuBLASLt's on the GB200, CUTLASS's on the B200).
enum class GemmPrecision { kFp8, kBf16, kFp4 };

const std::vector<std::string>& gemm_precision_names();  // "fp8", "bf16", "fp4" in GemmPrecision's order
// The GPU's dense tensor-core peak in `precision`; 0 where it has no such tensor cores.
double dense_flops_per_s(const Gpu& gpu, GemmPrecision precision);
// Bytes an operand element takes in HBM and L2, its scales included.
double operand_bytes_per_element(GemmPrecision precision);
// InputError at `where` when the GPU has no tensor cores of `precision`, naming the GPUs that have.
void require_precision(const Gpu& gpu, GemmPrecision precision, const std::string& where);

// out (m x n) = a (m x k) . b (n x k)^T, per group; for the grouped kinds m is each group's rows
// (masked: the padded maximum), and every group has its own b.
struct GemmShape {
  double m = 0, n = 0, k = 0;
  int groups = 1;
  GemmKind kind = GemmKind::kDense;
  GemmPrecision precision = GemmPrecision::kFp8;
  double flops() const { return 2 * m * n * k * groups; }
};

// The model's constants for one GEMM library, fitted once to its published rows (hw/gemm_fit.hpp,
// data/gemm_libraries/; `codesim tables --only kernels` shows each fit row by row). Calibrated,
// not datasheet figures: efficiencies are of the per-SM peak at the boost clock in the K loop
// (the fine-grained scales' promotion and the clock under load are in them), 0 for a kind the
// library has no rows of; the L2 rate is the effective one of operand loads with TMA multicast.
// The values here are where the fit starts.
struct GemmCalibration {
  double mma_efficiency = 0.80;              // dense and grouped contiguous
  double masked_mma_efficiency = 0.60;       // grouped masked
  double weight_gradient_efficiency = 0.62;  // weight-gradient kernel
  double tile_fill_s = 1.0e-6;               // per tile: the pipeline's first loads
  double hbm_efficiency = 0.90;
  double l2_Bps = 14e12;
  double launch_s = 2.2e-6;
  // The library's smallest M tile: DeepGEMM has 64-row tiles; a kernel whose smallest is 128
  // rows takes as long for 64 rows as for 128. Declared with the library's rows, not fitted.
  int min_block_m = 64;

  double efficiency(GemmKind kind) const;
};

struct GemmTiling {
  int block_m = 0, block_n = 0;
  double tiles = 0, waves = 0;
  int multicast = 1;  // TMA multicast of the b tile to 2 SMs (large M)
};

// Where a GEMM's time goes: the K loops of its waves bound by the tensor cores (`mma_s`) or by
// operand loads from L2 (`l2_s`), the fixed costs (launch, tile fills, outputs), and the floor of
// its unique bytes over HBM.
struct GemmTime {
  double seconds = 0;
  double mma_s = 0, l2_s = 0, fixed_s = 0, hbm_floor_s = 0;
  bool hbm_floor_binds = false;  // the unique bytes over HBM outlast the waves
  GemmTiling tiling;
  // "compute", "memory" (HBM or L2) or "launch" (fixed costs over half the time).
  std::string bound() const;
};

// `sms`: the SMs the GEMM runs on (all, or what communication kernels leave).
GemmTiling gemm_tiling(const GemmShape& shape, int sms, int min_block_m = 64);
GemmTime gemm_time(const Gpu& gpu, const GemmShape& shape, int sms, const GemmCalibration& c);
GemmTime gemm_time(const Gpu& gpu, const GemmShape& shape, const GemmTiling& tiling, int sms, const GemmCalibration& c);
double gemm_seconds(const Gpu& gpu, const GemmShape& shape, int sms, const GemmCalibration& c);
// With the tiling chosen beforehand (a fit times the same shapes many times).
double gemm_seconds(const Gpu& gpu, const GemmShape& shape, const GemmTiling& tiling, int sms,
                    const GemmCalibration& c);

}  // namespace hw
