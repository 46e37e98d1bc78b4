#include "hw/flash_attention_fit.hpp"

#include <algorithm>
#include <cmath>

#include "hw/log_fit.hpp"

namespace hw {

double attention_rate_tflops(const Gpu& gpu, const AttentionMeasurement& row, const FlashAttentionCalibration& c) {
  const bool forward = row.pass != "backward", backward = row.pass != "forward";
  double seconds = 0;
  if (forward) seconds += flash_attention_forward_seconds(gpu, row.shape, gpu.sm_count, c);
  if (backward) seconds += flash_attention_backward_seconds(gpu, row.shape, gpu.sm_count, c);
  const double work = (forward ? 1.0 : 0.0) + (backward ? 2.5 : 0.0);
  return work * row.shape.forward_flops() / seconds / 1e12;
}

const std::vector<std::string>& flash_attention_constant_names() {
  static const std::vector<std::string> names = {"mma_efficiency",  "softmax_s_per_score", "tile_s",
                                                 "cta_s",           "mask_s_per_score",    "backward_mma_efficiency",
                                                 "backward_tile_s", "backward_cta_s",      "hbm_Bps"};
  return names;
}

double& flash_attention_constant(FlashAttentionCalibration& c, const std::string& name) {
  if (name == "mma_efficiency") return c.mma_efficiency;
  if (name == "softmax_s_per_score") return c.softmax_s_per_score;
  if (name == "tile_s") return c.tile_s;
  if (name == "cta_s") return c.cta_s;
  if (name == "mask_s_per_score") return c.mask_s_per_score;
  if (name == "backward_mma_efficiency") return c.backward_mma_efficiency;
  if (name == "backward_tile_s") return c.backward_tile_s;
  if (name == "backward_cta_s") return c.backward_cta_s;
  return c.hbm_Bps;
}

// Each fitted constant as its log (all are positive); efficiencies stay at most 1.
FlashAttentionFit fit_flash_attention(const Gpu& gpu, const std::vector<AttentionMeasurement>& rows,
                                      const FlashAttentionCalibration& start, const std::vector<std::string>& fitted) {
  auto constants = [&](const Eigen::VectorXd& x) {
    FlashAttentionCalibration c = start;
    for (size_t i = 0; i < fitted.size(); ++i)
      flash_attention_constant(c, fitted[i]) = std::exp(x[static_cast<Eigen::Index>(i)]);
    c.mma_efficiency = std::min(c.mma_efficiency, 1.0);
    c.backward_mma_efficiency = std::min(c.backward_mma_efficiency, 1.0);
    return c;
  };
  FlashAttentionFit fit{start, 0};
  if (rows.empty()) return fit;
  Eigen::VectorXd x(fitted.size());
  for (size_t i = 0; i < fitted.size(); ++i) {
    FlashAttentionCalibration c = start;
    x[static_cast<Eigen::Index>(i)] = std::log(std::max(flash_attention_constant(c, fitted[i]), 1e-15));
  }
  fit.rms_log_error = fit_logs(x, static_cast<int>(rows.size()), [&](const Eigen::VectorXd& at, Eigen::VectorXd& r) {
    const FlashAttentionCalibration c = constants(at);
    for (size_t i = 0; i < rows.size(); ++i)
      r[static_cast<Eigen::Index>(i)] = std::log(attention_rate_tflops(gpu, rows[i], c) / rows[i].tflops);
  });
  fit.constants = constants(x);
  return fit;
}

}  // namespace hw
