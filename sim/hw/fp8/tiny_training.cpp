#include "hw/fp8/tiny_training.hpp"

#include <cmath>
#include <numeric>
#include <random>

#include "core/input_error.hpp"
#include "hw/fp8/gemm.hpp"

namespace hw::fp8 {

namespace {

enum class Recipe { kFp8, kBf16 };

// C = A x B^T under a recipe. FP8: A in 1x128 tiles, B in 128x128 blocks (weights) or 1x128
// tiles (activations and gradients in Wgrad), promoted every 128. BF16: operands rounded to
// BF16, products summed in FP32.
Matrix gemm(const Matrix& a, const Matrix& b, Recipe recipe, bool b_is_weight) {
  if (recipe == Recipe::kFp8) {
    const auto qa = quantize(a, kActivationTiles, e4m3());
    const auto qb = quantize(b, b_is_weight ? kWeightBlocks : kActivationTiles, e4m3());
    return gemm_limited(qa, qb, AccumulatorModel{});
  }
  Matrix ra = a.unaryExpr([](double x) { return round_to(bf16(), x); });
  Matrix rb = b.unaryExpr([](double x) { return round_to(bf16(), x); });
  Matrix c = ra * rb.transpose();
  return c.unaryExpr([](double x) { return static_cast<double>(static_cast<float>(x)); });
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, double scale, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, scale);
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

std::vector<double> train(const TinyTraining& c, Recipe recipe) {
  std::mt19937_64 rng(c.seed);
  // Teacher and student start from the same seeded draws for both recipes.
  const Matrix teacher1 = random_matrix(c.hidden, c.inputs, 1.0 / std::sqrt(c.inputs), rng);
  const Matrix teacher2 = random_matrix(c.outputs, c.hidden, 1.0 / std::sqrt(c.hidden), rng);
  Matrix w1 = random_matrix(c.hidden, c.inputs, 1.0 / std::sqrt(c.inputs), rng);
  Matrix w2 = random_matrix(c.outputs, c.hidden, 1.0 / std::sqrt(c.hidden), rng);
  Matrix v1 = Matrix::Zero(w1.rows(), w1.cols()), v2 = Matrix::Zero(w2.rows(), w2.cols());
  std::vector<double> losses;
  for (int step = 0; step < c.steps; ++step) {
    const Matrix x = random_matrix(c.batch, c.inputs, 1.0, rng);
    const Matrix target = (x * teacher1.transpose()).cwiseMax(0.0) * teacher2.transpose();  // exact teacher
    // Forward: h = relu(x W1^T), y = h W2^T.
    const Matrix pre = gemm(x, w1, recipe, true);
    const Matrix h = pre.cwiseMax(0.0);
    const Matrix y = gemm(h, w2, recipe, true);
    const Matrix diff = y - target;
    losses.push_back(diff.squaredNorm() / static_cast<double>(diff.size()));
    // Backward (mean-squared error): dY = 2 (y - t) / n.
    const Matrix dy = diff * (2.0 / static_cast<double>(diff.size()));
    const Matrix dw2 = gemm(dy.transpose(), h.transpose(), recipe, false);  // Wgrad
    const Matrix dh =
        gemm(dy, w2.transpose(), recipe, true).cwiseProduct((pre.array() > 0).cast<double>().matrix());  // Dgrad
    const Matrix dw1 = gemm(dh.transpose(), x.transpose(), recipe, false);                               // Wgrad
    // SGD with momentum on FP32 master weights.
    v2 = c.momentum * v2 + dw2;
    v1 = c.momentum * v1 + dw1;
    w2 -= c.learning_rate * v2;
    w1 -= c.learning_rate * v1;
    w1 = w1.unaryExpr([](double v) { return static_cast<double>(static_cast<float>(v)); });
    w2 = w2.unaryExpr([](double v) { return static_cast<double>(static_cast<float>(v)); });
  }
  return losses;
}

}  // namespace

TrainingCurves train_fp8_against_bf16(const TinyTraining& c) {
  for (int d : {c.batch, c.inputs, c.hidden, c.outputs})
    if (d % 128 != 0 || d < 128 || d > 4096)
      throw core::InputError("tiny model",
                             std::to_string(d) + " is not allowed; every dimension a multiple of 128 up to 4096");
  if (c.steps < 10 || c.steps > 100000)
    throw core::InputError("steps", std::to_string(c.steps) + " is not from 10 to 100000");
  TrainingCurves t;
  t.fp8_loss = train(c, Recipe::kFp8);
  t.bf16_loss = train(c, Recipe::kBf16);
  const std::size_t tail = std::max<std::size_t>(1, t.fp8_loss.size() / 10);
  const double fp8 = std::accumulate(t.fp8_loss.end() - static_cast<long>(tail), t.fp8_loss.end(), 0.0) / tail;
  const double bf16 = std::accumulate(t.bf16_loss.end() - static_cast<long>(tail), t.bf16_loss.end(), 0.0) / tail;
  t.final_relative_gap = std::fabs(fp8 - bf16) / bf16;
  return t;
}

}  // namespace hw::fp8
