#pragma once
// The kernel model's constants (hw/gemm_kernel.hpp) fitted to a library's published rows: least
// squares of the log of our rate over theirs, every row weighing alike, by Levenberg-Marquardt
// from DeepGEMM-like starting values. An efficiency of a kind without rows stays 0: the library
// cannot time that kind.
#include <cstddef>
#include <string>
#include <vector>

#include "hw/gemm_library.hpp"

namespace hw {

struct GemmFit {
  GemmCalibration constants;
  double rms_log_error = 0;
};

// `min_block_m`: the library's smallest M tile (GemmCalibration::min_block_m), kept as given.
// `held`: constants taken from `held_values` rather than fitted (a library of fewer rows than
// constants holds what another fit of the same chip knows, such as its L2's rate).
GemmFit fit_gemm_calibration(const Gpu& gpu, const std::vector<GemmMeasurement>& rows, int min_block_m = 64,
                             const std::vector<std::string>& held = {}, const GemmCalibration& held_values = {});

// The constants a library may hold from another's fit, by name: "tile_fill_s", "hbm_efficiency",
// "l2_Bps", "launch_s".
const std::vector<std::string>& holdable_gemm_constants();
// How many constants a fit of `rows` holding `held` has to find (each needs a row at least).
std::size_t fitted_gemm_constants(const std::vector<GemmMeasurement>& rows, const std::vector<std::string>& held);

}  // namespace hw
