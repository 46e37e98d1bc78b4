#pragma once
// FP8 GEMM C = A x B^T on quantised operands (A: M x K in 1x128 tiles, B: N x K in 128x128
// blocks), three ways:
//  - limited: Hopper's tensor-core accumulation modelled bit by bit. Each MMA adds `group` (32)
//    products to the accumulator: all terms, the accumulator included, are aligned to the
//    largest exponent and cut (toward zero) to `product_fraction_bits` bits below it, summed, and
//    the sum cut to the accumulator's mantissa (FP22: 13 bits).
//  - promoted: the same inside each `promote_every` (N_c = 128) slice of K, started from zero;
//    then, on "CUDA cores", fp32 += (scale_a x scale_b) x slice in FP32 (DeepSeek-V3 §3.3.2).
//  - reference: double precision (Eigen) on the dequantised operands.
#include "hw/fp8/quantize.hpp"

namespace hw::fp8 {

struct AccumulatorModel {
  int accumulator_bits = 22;       // 1 sign + 8 exponent + (bits - 9) mantissa: 22 is Hopper's FP22
  int product_fraction_bits = 13;  // kept below the leading bit after alignment (14 bits with it)
  int group = 32;                  // products per tensor-core MMA (K = 32 for FP8 WGMMA)
  int promote_every = 128;         // K elements per promotion to FP32; 0: never (fast accumulation)

  int accumulator_mantissa_bits() const { return accumulator_bits - 9; }
};

// Throws core::InputError for shapes that do not match or a model outside what it supports.
void check_model(const AccumulatorModel& model, Eigen::Index k);

// Without promotion the per-tile scales cannot wait for the end, so each product is scaled
// before it enters the accumulator (as with per-tensor scaling); with promotion a slice inside
// one scale tile is scaled once when promoted.
Matrix gemm_limited(const QuantizedMatrix& a, const QuantizedMatrix& b, const AccumulatorModel& model);
Matrix gemm_reference(const Matrix& a, const Matrix& b);

struct GemmError {
  double max_relative = 0;   // max |c - ref| / |ref| over elements
  double mean_relative = 0;  // mean of the same
  double max_over_rms = 0;   // max |c - ref| / rms(ref): relative to the output's scale, for zero-mean data
  double deepgemm_diff = 0;  // 1 - 2 sum(c ref) / sum(c^2 + ref^2), DeepGEMM's test metric
};
GemmError compare(const Matrix& c, const Matrix& reference);

}  // namespace hw::fp8
