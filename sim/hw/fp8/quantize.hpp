#pragma once
// Fine-grained quantisation as DeepSeek-V3's FP8 kernels do it (report §3.3.2): activations in
// 1x128 tiles (per token, per 128 channels), weights in 128x128 blocks, each tile with its own
// scale = amax / max-representable, computed online; optionally rounded up to a power of two
// (UE8M0). Edge tiles that do not fill 128 are simply smaller (the same as zero padding).
#include <Eigen/Dense>

#include "hw/fp8/float_format.hpp"

namespace hw::fp8 {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Tiling {
  int rows = 1;
  int cols = 128;
};
inline constexpr Tiling kActivationTiles{1, 128};
inline constexpr Tiling kWeightBlocks{128, 128};
inline constexpr Tiling kTransposedActivationTiles{128, 1};  // the backward pass's re-tiling

struct QuantizeOptions {
  bool power_of_two_scales = false;
  double amax_floor = 1e-4;  // keeps all-zero tiles from a zero scale (DeepSeek's kernels clamp the same way)
};

struct QuantizedMatrix {
  Matrix values;  // on the format's grid, before scaling
  Matrix scales;  // one per tile: ceil(rows / tile.rows) x ceil(cols / tile.cols)
  Tiling tile;
  const FloatFormat* format = nullptr;

  double scale_at(Eigen::Index row, Eigen::Index col) const { return scales(row / tile.rows, col / tile.cols); }
  Matrix dequantized() const;
};

// Throws core::InputError when x holds NaN or Inf: no scale can represent them.
QuantizedMatrix quantize(const Matrix& x, Tiling tile, const FloatFormat& format, const QuantizeOptions& options = {});

// Dequantise and quantise again with another tiling, as the backward pass does to turn 1x128
// activation tiles into 128x1 ones for the weight-gradient GEMM.
QuantizedMatrix retile(const QuantizedMatrix& q, Tiling tile, const QuantizeOptions& options = {});

}  // namespace hw::fp8
