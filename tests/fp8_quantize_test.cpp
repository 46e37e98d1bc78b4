#include <catch2/catch.hpp>
#include <cmath>

#include "core/input_error.hpp"
#include "hw/fp8/gemm_study.hpp"

using namespace hw::fp8;

TEST_CASE("1x128 tiles: one scale per token and 128 channels, amax maps to 448", "[fp8][quantize]") {
  const Matrix x = synthetic(3, 300, Data::kNormal, 7);  // 300 = 2 full tiles + a partial one
  const auto q = quantize(x, kActivationTiles, e4m3());
  REQUIRE(q.scales.rows() == 3);
  REQUIRE(q.scales.cols() == 3);
  for (Eigen::Index r = 0; r < 3; ++r)
    for (Eigen::Index t = 0; t < 3; ++t) {
      const Eigen::Index c0 = t * 128, cols = std::min<Eigen::Index>(128, 300 - c0);
      const double amax = x.block(r, c0, 1, cols).cwiseAbs().maxCoeff();
      CHECK(q.scales(r, t) == amax / 448);
      CHECK(q.values.block(r, c0, 1, cols).cwiseAbs().maxCoeff() == 448);
    }
  // Every value is on the E4M3 grid, and dequantisation is within E4M3's half spacing.
  const Matrix d = q.dequantized();
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    CHECK(round_to(e4m3(), q.values.data()[i]) == q.values.data()[i]);
    const double scale = q.scale_at(i / 300, i % 300);
    CHECK(std::fabs(d.data()[i] - x.data()[i]) <= std::max(std::fabs(x.data()[i]) / 16, scale * std::ldexp(1.0, -10)));
  }
}

TEST_CASE("128x128 weight blocks and power-of-two scales", "[fp8][quantize]") {
  const Matrix w = synthetic(256, 256, Data::kNormal, 9);
  const auto q = quantize(w, kWeightBlocks, e4m3(), {true});
  REQUIRE(q.scales.rows() == 2);
  REQUIRE(q.scales.cols() == 2);
  for (Eigen::Index i = 0; i < q.scales.size(); ++i) {
    const double s = q.scales.data()[i];
    CHECK(std::exp2(std::round(std::log2(s))) == s);  // a power of two
  }
  CHECK(q.values.cwiseAbs().maxCoeff() <= 448);
}

TEST_CASE("an all-zero tile gets the floor scale, not zero", "[fp8][quantize]") {
  const auto q = quantize(Matrix::Zero(1, 128), kActivationTiles, e4m3());
  CHECK(q.scales(0, 0) == 1e-4 / 448);
  CHECK(q.dequantized().isZero());
}

TEST_CASE("backward re-tiling: 1x128 tiles become 128x1", "[fp8][quantize]") {
  const Matrix x = synthetic(128, 256, Data::kNormal, 4);
  const auto rows = quantize(x, kActivationTiles, e4m3());
  const auto cols = retile(rows, kTransposedActivationTiles);
  CHECK(cols.scales.rows() == 1);
  CHECK(cols.scales.cols() == 256);
  CHECK((cols.dequantized() - x).cwiseAbs().maxCoeff() < 0.2 * x.cwiseAbs().maxCoeff());
}

TEST_CASE("NaN and Inf in the data are refused, naming the element", "[fp8][quantize]") {
  Matrix x = Matrix::Ones(2, 128);
  x(1, 5) = NAN;
  CHECK_THROWS_WITH(quantize(x, kActivationTiles, e4m3()), Catch::StartsWith("input data: element (1, 5) is nan"));
  x(1, 5) = INFINITY;
  CHECK_THROWS_AS(quantize(x, kActivationTiles, e4m3()), core::InputError);
}
