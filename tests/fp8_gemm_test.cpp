#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "core/input_error.hpp"
#include "hw/fp8/gemm_study.hpp"

using namespace hw::fp8;

namespace {

// Operands already on the E4M3 grid, every scale 1.
QuantizedMatrix unscaled(const Matrix& values, Tiling tile) {
  QuantizedMatrix q;
  q.values = values;
  q.tile = tile;
  q.format = &e4m3();
  q.scales = Matrix::Ones((values.rows() + tile.rows - 1) / tile.rows, (values.cols() + tile.cols - 1) / tile.cols);
  return q;
}

}  // namespace

TEST_CASE("limited accumulation drops what falls below the aligned grid, bit by bit", "[fp8][gemm]") {
  Matrix a = Matrix::Ones(1, 128);
  Matrix b = Matrix::Constant(1, 128, std::ldexp(1.0, -6));
  b(0, 0) = 256;
  const auto qa = unscaled(a, kActivationTiles), qb = unscaled(b, kWeightBlocks);
  AccumulatorModel m;  // FP22, 13 fraction bits: next to 256 = 2^8 the grid is 2^-5, so 2^-6 is lost
  m.promote_every = 0;
  CHECK(gemm_limited(qa, qb, m)(0, 0) == 256.0);
  m.promote_every = 128;
  CHECK(gemm_limited(qa, qb, m)(0, 0) == 256.0);
  // Promoting every 32: the three later slices sum their 32 x 2^-6 = 0.5 exactly, apart from 256.
  m.promote_every = 32;
  CHECK(gemm_limited(qa, qb, m)(0, 0) == 257.5);
  // Enough alignment bits keep the products, but 256 + 127/64 needs 15 significant bits and FP22
  // keeps 14: the accumulator cuts it to 257.96875. A 32-bit accumulator keeps it all.
  m.promote_every = 0;
  m.product_fraction_bits = 20;
  CHECK(gemm_limited(qa, qb, m)(0, 0) == 257.96875);
  m.accumulator_bits = 32;
  CHECK(gemm_limited(qa, qb, m)(0, 0) == 256 + 127.0 / 64);
  CHECK(gemm_reference(qa.dequantized(), qb.dequantized())(0, 0) == 256 + 127.0 / 64);
}

TEST_CASE("the accumulator's mantissa cuts toward zero", "[fp8][gemm]") {
  // 1 + 2^-13 + 2^-14 needs 14 mantissa bits: FP22 keeps 1 + 2^-13.
  Matrix a = Matrix::Zero(1, 128);
  a(0, 0) = 1;
  a(0, 1) = std::ldexp(1.0, -7);
  a(0, 2) = std::ldexp(1.0, -7);
  Matrix b = Matrix::Zero(1, 128);
  b(0, 0) = 1;
  b(0, 1) = std::ldexp(1.0, -6);
  b(0, 2) = std::ldexp(1.0, -7);
  AccumulatorModel m;
  m.promote_every = 0;
  m.product_fraction_bits = 30;
  CHECK(gemm_limited(unscaled(a, kActivationTiles), unscaled(b, kWeightBlocks), m)(0, 0) == 1 + std::ldexp(1.0, -13));
  m.accumulator_bits = 32;
  CHECK(gemm_limited(unscaled(a, kActivationTiles), unscaled(b, kWeightBlocks), m)(0, 0) ==
        1 + std::ldexp(1.0, -13) + std::ldexp(1.0, -14));
}

TEST_CASE("error grows with K without promotion; promotion and wider accumulators remove it", "[fp8][gemm]") {
  GemmStudy s;
  s.m = s.n = 32;
  s.data = Data::kNormal;
  s.model.promote_every = 0;
  s.k = 512;
  const double short_k = run_gemm_study(s).accumulation.max_over_rms;
  s.k = 4096;
  const double long_k = run_gemm_study(s).accumulation.max_over_rms;
  CHECK(long_k > 2 * short_k);
  s.model.promote_every = 128;
  const double promoted = run_gemm_study(s).accumulation.max_over_rms;
  CHECK(promoted < long_k / 10);
  s.model.promote_every = 0;
  s.model.accumulator_bits = 32;
  s.model.product_fraction_bits = 23;
  CHECK(run_gemm_study(s).accumulation.max_over_rms < long_k / 50);
}

TEST_CASE("an exact accumulator reproduces double precision", "[fp8][gemm]") {
  GemmStudy s;
  s.m = s.n = 8;
  s.k = 1024;
  s.model.accumulator_bits = 41;
  s.model.product_fraction_bits = 52;
  s.model.promote_every = 0;
  // Each of the K / 32 MMAs cuts the positive sum by less than 2^-32 of it.
  CHECK(run_gemm_study(s).accumulation.max_relative < (1024.0 / 32) * std::ldexp(1.0, -32));
}

TEST_CASE("the seed fixes the data, and the data has the distribution asked for", "[fp8][gemm]") {
  CHECK(synthetic(4, 4, Data::kNormal, 3) == synthetic(4, 4, Data::kNormal, 3));
  CHECK(synthetic(4, 4, Data::kNormal, 3) != synthetic(4, 4, Data::kNormal, 4));
  // 65,536 standard normal draws: mean 0 and variance 1 within 5 standard errors; the
  // positive data is their absolute value, whose mean is sqrt(2 / pi).
  const Matrix x = synthetic(256, 256, Data::kNormal, 7);
  const double n = double(x.size()), mean = x.mean();
  const double variance = (x.array() - mean).square().sum() / (n - 1);
  CHECK(std::abs(mean) < 5 / std::sqrt(n));
  CHECK(std::abs(variance - 1) < 5 * std::sqrt(2 / n));
  const Matrix p = synthetic(256, 256, Data::kPositive, 7);
  CHECK(p.minCoeff() >= 0);
  CHECK(std::abs(p.mean() - std::sqrt(2 / std::numbers::pi)) < 5 * std::sqrt((1 - 2 / std::numbers::pi) / n));
}

TEST_CASE("GEMM requests outside the model are refused", "[fp8][gemm]") {
  AccumulatorModel m;
  CHECK_THROWS_WITH(check_model(m, 100), "K: 100 is not a multiple of the 128-element quantisation tile");
  m.accumulator_bits = 50;
  CHECK_THROWS_WITH(check_model(m, 128), Catch::StartsWith("accumulator bits: 50 is not supported"));
  m = {};
  m.promote_every = 48;
  CHECK_THROWS_WITH(check_model(m, 128), Catch::StartsWith("promote every: 48 is not allowed"));
}
