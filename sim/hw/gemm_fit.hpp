#pragma once
// The kernel model's constants (hw/gemm_kernel.hpp) fitted to a library's published rows: least
// squares of the log of our rate over theirs, every row weighing alike, by Levenberg-Marquardt
// from DeepGEMM-like starting values. An efficiency of a kind without rows stays 0: the library
// cannot time that kind.
#include <vector>

#include "hw/gemm_library.hpp"

namespace hw {

struct GemmFit {
  GemmCalibration constants;
  double rms_log_error = 0;
};

// `min_block_m`: the library's smallest M tile (GemmCalibration::min_block_m), kept as given.
GemmFit fit_gemm_calibration(const Gpu& gpu, const std::vector<GemmMeasurement>& rows, int min_block_m = 64);

}  // namespace hw
