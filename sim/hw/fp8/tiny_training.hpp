#pragma once
// A small model trained on the CPU twice, with the FP8 recipe of the DeepSeek-V3 report
// (§3.3: Fprop, Dgrad and Wgrad GEMMs on E4M3 operands with 1x128 / 128x128 scaling and FP32
// promotion every 128; master weights, gradients and the optimizer in FP32) and with BF16 GEMMs
// (BF16 operands, FP32 accumulation), from the same seed and data, to compare their losses.
// The model: a two-layer ReLU MLP regressing a random teacher MLP, mean-squared error, SGD with
// momentum. Dimensions are multiples of 128, as the FP8 tiles need.
#include <cstdint>
#include <vector>

namespace hw::fp8 {

struct TinyTraining {
  int batch = 128;
  int inputs = 128;
  int hidden = 256;
  int outputs = 128;
  int steps = 100;
  double learning_rate = 0.05;
  double momentum = 0.9;
  std::uint64_t seed = 1;
};

struct TrainingCurves {
  std::vector<double> fp8_loss;
  std::vector<double> bf16_loss;
  // |mean FP8 loss - mean BF16 loss| / mean BF16 loss over the last tenth of the steps.
  double final_relative_gap = 0;
};

TrainingCurves train_fp8_against_bf16(const TinyTraining& config);

}  // namespace hw::fp8
