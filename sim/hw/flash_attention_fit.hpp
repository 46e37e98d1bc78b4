#pragma once
// FlashAttention's tile-model constants (hw/flash_attention.hpp) fitted to a kernel's published
// rates: least squares of the log of our rate over theirs, every row weighing alike, by
// Levenberg-Marquardt from a starting set (another generation's constants); only the constants
// named are fitted, the others kept as they start.
#include <string>
#include <vector>

#include "hw/flash_attention.hpp"

namespace hw {

// One published rate: a forward, a backward, or a forward and backward pass together (the rate
// is then 3.5 times the forward's FLOPs over the two passes' time).
struct AttentionMeasurement {
  std::string pass;  // "forward", "backward" or "forward+backward"
  AttentionShape shape;
  double tflops = 0;
};

// Our rate for a row, on all of `gpu`'s SMs.
double attention_rate_tflops(const Gpu& gpu, const AttentionMeasurement& row, const FlashAttentionCalibration& c);

// The names a "fit" list may give, in FlashAttentionCalibration's order.
const std::vector<std::string>& flash_attention_constant_names();
double& flash_attention_constant(FlashAttentionCalibration& c, const std::string& name);

struct FlashAttentionFit {
  FlashAttentionCalibration constants;
  double rms_log_error = 0;
};
FlashAttentionFit fit_flash_attention(const Gpu& gpu, const std::vector<AttentionMeasurement>& rows,
                                      const FlashAttentionCalibration& start, const std::vector<std::string>& fitted);

}  // namespace hw
