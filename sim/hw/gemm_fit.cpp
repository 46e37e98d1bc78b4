#include "hw/gemm_fit.hpp"

#include <algorithm>
#include <cmath>

#include "hw/log_fit.hpp"

namespace hw {

namespace {

// The constants a library may hold, in holdable_gemm_constants()' order.
const std::vector<double GemmCalibration::*>& holdable_fields() {
  static const std::vector<double GemmCalibration::*> fields = {&GemmCalibration::tile_fill_s,
                                                                &GemmCalibration::hbm_efficiency,
                                                                &GemmCalibration::l2_Bps, &GemmCalibration::launch_s};
  return fields;
}

// The fitted constants, each as its log (all are positive); an efficiency whose kind has no rows
// is left out, and so is a held constant.
struct Parameters {
  std::vector<double GemmCalibration::*> fields;
  GemmCalibration base;  // what is not fitted (min_block_m, held constants)

  Parameters(const std::vector<GemmMeasurement>& rows, const std::vector<std::string>& held) {
    auto any = [&](GemmKind kind) {
      return std::any_of(rows.begin(), rows.end(), [&](const GemmMeasurement& r) { return r.shape.kind == kind; });
    };
    if (any(GemmKind::kDense) || any(GemmKind::kGroupedContiguous)) fields.push_back(&GemmCalibration::mma_efficiency);
    if (any(GemmKind::kGroupedMasked)) fields.push_back(&GemmCalibration::masked_mma_efficiency);
    if (any(GemmKind::kWeightGradient)) fields.push_back(&GemmCalibration::weight_gradient_efficiency);
    const auto& names = holdable_gemm_constants();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (std::find(held.begin(), held.end(), names[i]) == held.end()) fields.push_back(holdable_fields()[i]);
  }

  Eigen::VectorXd start() const {
    const GemmCalibration c;
    Eigen::VectorXd x(fields.size());
    for (size_t i = 0; i < fields.size(); ++i) x[i] = std::log(c.*fields[i]);
    return x;
  }

  GemmCalibration constants(const Eigen::VectorXd& x) const {
    GemmCalibration c = base;
    c.mma_efficiency = c.masked_mma_efficiency = c.weight_gradient_efficiency = 0;
    for (size_t i = 0; i < fields.size(); ++i) c.*fields[i] = std::exp(x[i]);
    // Fractions of a peak stay fractions.
    for (auto f : {&GemmCalibration::mma_efficiency, &GemmCalibration::masked_mma_efficiency,
                   &GemmCalibration::weight_gradient_efficiency, &GemmCalibration::hbm_efficiency})
      c.*f = std::min(c.*f, 1.0);
    return c;
  }
};

}  // namespace

std::size_t fitted_gemm_constants(const std::vector<GemmMeasurement>& rows, const std::vector<std::string>& held) {
  return Parameters(rows, held).fields.size();
}

const std::vector<std::string>& holdable_gemm_constants() {
  static const std::vector<std::string> names = {"tile_fill_s", "hbm_efficiency", "l2_Bps", "launch_s"};
  return names;
}

GemmFit fit_gemm_calibration(const Gpu& gpu, const std::vector<GemmMeasurement>& rows, int min_block_m,
                             const std::vector<std::string>& held, const GemmCalibration& held_values) {
  Parameters parameters(rows, held);
  parameters.base = held_values;
  parameters.base.min_block_m = min_block_m;
  std::vector<GemmTiling> tilings;
  for (const auto& row : rows) tilings.push_back(gemm_tiling(row.shape, gpu.sm_count, min_block_m));
  Eigen::VectorXd x = parameters.start();
  GemmFit fit;
  fit.rms_log_error = fit_logs(x, static_cast<int>(rows.size()), [&](const Eigen::VectorXd& at, Eigen::VectorXd& r) {
    const GemmCalibration c = parameters.constants(at);
    for (size_t i = 0; i < rows.size(); ++i) {
      const GemmMeasurement& row = rows[i];
      const double ours = row.shape.flops() / gemm_seconds(gpu, row.shape, tilings[i], gpu.sm_count, c) / 1e12;
      r[static_cast<Eigen::Index>(i)] = std::log(ours / row.tflops);
    }
  });
  fit.constants = parameters.constants(x);
  return fit;
}

}  // namespace hw
