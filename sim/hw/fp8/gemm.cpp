#include "hw/fp8/gemm.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/input_error.hpp"

namespace hw::fp8 {

namespace {

// Unbiased binary exponent of a normal, non-zero double, from its bits (faster than ilogb).
inline int exponent_of(double x) { return static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7FF) - 1023; }

inline double power_of_two(int e) { return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52); }

// One tensor-core MMA: the accumulator plus `n` products, aligned to the largest exponent and
// cut toward zero `fraction_bits` below it; the sum is then cut to the accumulator's mantissa.
inline double mma(double accumulator, const double* products, int n, int fraction_bits, int accumulator_mantissa) {
  int top = accumulator != 0 ? exponent_of(accumulator) : -1074;
  for (int i = 0; i < n; ++i)
    if (products[i] != 0) top = std::max(top, exponent_of(products[i]));
  if (top == -1074) return 0;
  const double to_grid = power_of_two(fraction_bits - top);  // terms become integers on the grid
  double sum = static_cast<double>(static_cast<std::int64_t>(accumulator * to_grid));
  for (int i = 0; i < n; ++i) sum += static_cast<double>(static_cast<std::int64_t>(products[i] * to_grid));
  return truncate_mantissa(sum / to_grid, accumulator_mantissa);
}

}  // namespace

void check_model(const AccumulatorModel& m, Eigen::Index k) {
  if (m.accumulator_bits < 12 || m.accumulator_bits > 41)
    throw core::InputError("accumulator bits", std::to_string(m.accumulator_bits) +
                                                   " is not supported; from 12 to 41 (1 sign, 8 exponent, 3 to 32 "
                                                   "mantissa bits; 22 is Hopper's FP22, 32 is FP32)");
  if (m.product_fraction_bits < 1 || m.product_fraction_bits > 52)
    throw core::InputError("product fraction bits", std::to_string(m.product_fraction_bits) + " is not from 1 to 52");
  if (m.group < 1 || m.group > 4096)
    throw core::InputError("group", std::to_string(m.group) + " is not from 1 to 4096");
  if (m.promote_every < 0 || (m.promote_every > 0 && m.promote_every % m.group != 0))
    throw core::InputError("promote every", std::to_string(m.promote_every) +
                                                " is not allowed; 0 (never) or a multiple of the MMA group (" +
                                                std::to_string(m.group) + ")");
  if (k % 128 != 0)
    throw core::InputError("K", std::to_string(k) + " is not a multiple of the 128-element quantisation tile");
}

Matrix gemm_limited(const QuantizedMatrix& a, const QuantizedMatrix& b, const AccumulatorModel& model) {
  if (a.values.cols() != b.values.cols())
    throw core::InputError(
        "K", "A has " + std::to_string(a.values.cols()) + " columns but B has " + std::to_string(b.values.cols()));
  const Eigen::Index M = a.values.rows(), N = b.values.rows(), K = a.values.cols();
  check_model(model, K);
  const int mantissa = model.accumulator_mantissa_bits();
  const Eigen::Index slice = model.promote_every > 0 ? model.promote_every : K;
  Matrix c(M, N);
  std::vector<double> products(static_cast<std::size_t>(model.group));
  // A group that never straddles a scale tile can take its scale once.
  const bool group_in_one_tile = a.tile.cols % model.group == 0 && b.tile.cols % model.group == 0;
  for (Eigen::Index m = 0; m < M; ++m) {
    const double* a_row = a.values.row(m).data();
    for (Eigen::Index n = 0; n < N; ++n) {
      const double* b_row = b.values.row(n).data();
      float promoted = 0;  // FP32 on CUDA cores
      double accumulator = 0;
      for (Eigen::Index k0 = 0; k0 < K; k0 += slice) {
        const Eigen::Index k1 = std::min(K, k0 + slice);
        // A slice within one scale tile of A and of B is scaled once, at promotion.
        const bool scale_at_promotion = model.promote_every > 0 && k0 / a.tile.cols == (k1 - 1) / a.tile.cols &&
                                        k0 / b.tile.cols == (k1 - 1) / b.tile.cols;
        if (model.promote_every > 0) accumulator = 0;
        for (Eigen::Index g0 = k0; g0 < k1; g0 += model.group) {
          const int n_group = static_cast<int>(std::min<Eigen::Index>(model.group, k1 - g0));
          if (scale_at_promotion) {
            for (int i = 0; i < n_group; ++i) products[i] = a_row[g0 + i] * b_row[g0 + i];
          } else if (group_in_one_tile) {
            const double scale = a.scale_at(m, g0) * b.scale_at(n, g0);
            for (int i = 0; i < n_group; ++i) products[i] = a_row[g0 + i] * b_row[g0 + i] * scale;
          } else {
            for (int i = 0; i < n_group; ++i) {
              const Eigen::Index k = g0 + i;
              products[i] = a_row[k] * b_row[k] * (a.scale_at(m, k) * b.scale_at(n, k));
            }
          }
          accumulator = mma(accumulator, products.data(), n_group, model.product_fraction_bits, mantissa);
        }
        if (model.promote_every > 0) {
          const float scale = scale_at_promotion ? static_cast<float>(a.scale_at(m, k0) * b.scale_at(n, k0)) : 1.0f;
          promoted = std::fma(scale, static_cast<float>(accumulator), promoted);
        }
      }
      c(m, n) = model.promote_every > 0 ? static_cast<double>(promoted) : accumulator;
    }
  }
  return c;
}

Matrix gemm_reference(const Matrix& a, const Matrix& b) { return a * b.transpose(); }

GemmError compare(const Matrix& c, const Matrix& reference) {
  GemmError e;
  double cross = 0, squares = 0, reference_squares = 0, max_abs = 0;
  Eigen::Index counted = 0;
  for (Eigen::Index i = 0; i < c.size(); ++i) {
    const double x = c.data()[i], y = reference.data()[i];
    cross += x * y;
    squares += x * x + y * y;
    reference_squares += y * y;
    max_abs = std::max(max_abs, std::fabs(x - y));
    if (y == 0) continue;
    const double rel = std::fabs(x - y) / std::fabs(y);
    e.max_relative = std::max(e.max_relative, rel);
    e.mean_relative += rel;
    ++counted;
  }
  if (counted) e.mean_relative /= static_cast<double>(counted);
  if (reference_squares > 0) e.max_over_rms = max_abs / std::sqrt(reference_squares / static_cast<double>(c.size()));
  e.deepgemm_diff = squares > 0 ? 1 - 2 * cross / squares : 0;
  return e;
}

}  // namespace hw::fp8
