#include "hw/fp8/quantize.hpp"

#include <cmath>

#include "core/input_error.hpp"

namespace hw::fp8 {

Matrix QuantizedMatrix::dequantized() const {
  Matrix out(values.rows(), values.cols());
  for (Eigen::Index r = 0; r < values.rows(); ++r)
    for (Eigen::Index c = 0; c < values.cols(); ++c) out(r, c) = values(r, c) * scale_at(r, c);
  return out;
}

QuantizedMatrix quantize(const Matrix& x, Tiling tile, const FloatFormat& format, const QuantizeOptions& options) {
  QuantizedMatrix q;
  q.tile = tile;
  q.format = &format;
  q.values.resize(x.rows(), x.cols());
  const Eigen::Index tile_rows = (x.rows() + tile.rows - 1) / tile.rows;
  const Eigen::Index tile_cols = (x.cols() + tile.cols - 1) / tile.cols;
  q.scales.resize(tile_rows, tile_cols);
  const double max_value = format.max_finite();
  for (Eigen::Index tr = 0; tr < tile_rows; ++tr)
    for (Eigen::Index tc = 0; tc < tile_cols; ++tc) {
      const Eigen::Index r0 = tr * tile.rows, c0 = tc * tile.cols;
      const Eigen::Index rows = std::min<Eigen::Index>(tile.rows, x.rows() - r0);
      const Eigen::Index cols = std::min<Eigen::Index>(tile.cols, x.cols() - c0);
      const auto block = x.block(r0, c0, rows, cols);
      if (!block.allFinite()) {
        for (Eigen::Index r = 0; r < rows; ++r)
          for (Eigen::Index c = 0; c < cols; ++c)
            if (!std::isfinite(block(r, c)))
              throw core::InputError("input data", "element (" + std::to_string(r0 + r) + ", " +
                                                       std::to_string(c0 + c) + ") is " + std::to_string(block(r, c)) +
                                                       "; FP8 quantisation needs finite values");
      }
      double scale = std::max(block.cwiseAbs().maxCoeff(), options.amax_floor) / max_value;
      if (options.power_of_two_scales) scale = round_to(ue8m0(), scale);
      q.scales(tr, tc) = scale;
      for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index c = 0; c < cols; ++c) q.values(r0 + r, c0 + c) = round_to(format, block(r, c) / scale);
    }
  return q;
}

QuantizedMatrix retile(const QuantizedMatrix& q, Tiling tile, const QuantizeOptions& options) {
  return quantize(q.dequantized(), tile, *q.format, options);
}

}  // namespace hw::fp8
