#include "workload/stage_layout.hpp"

#include <algorithm>
#include <limits>

#include "core/input_error.hpp"
#include "workload/layer_cost.hpp"

namespace workload {

std::vector<int> balanced_partition(const std::vector<double>& w, int parts) {
  const int n = static_cast<int>(w.size());
  std::vector<double> prefix(n + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + w[i];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[p][i]: the smallest largest sum cutting the first i items into p runs.
  std::vector<std::vector<double>> best(parts + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<int>> cut(parts + 1, std::vector<int>(n + 1, 0));
  best[0][0] = 0;
  const int least = n >= parts ? 1 : 0;  // items per run, when there are enough to go round
  for (int p = 1; p <= parts; ++p)
    for (int i = 0; i <= n; ++i)
      for (int j = 0; j <= i - least; ++j) {
        const double v = std::max(best[p - 1][j], prefix[i] - prefix[j]);
        if (v < best[p][i] || (v == best[p][i] && j > cut[p][i])) {
          best[p][i] = v;
          cut[p][i] = j;
        }
      }
  std::vector<int> sizes(parts);
  for (int p = parts, i = n; p > 0; --p) {
    sizes[p - 1] = i - cut[p][i];
    i = cut[p][i];
  }
  return sizes;
}

namespace {

void check_stages(const Model& model, int stages, const std::string& where) {
  if (stages > model.layers)
    throw core::InputError(where, std::to_string(stages) + " stages is not allowed; " + model.display_name + " has " +
                                      std::to_string(model.layers) + " layers, at least one per stage");
}

}  // namespace

StageLayout balanced_stage_layout(const Model& model, int stages, bool mtp, double sequence_tokens,
                                  const std::string& where) {
  check_stages(model, stages, where);
  const auto costs = layer_costs(model);
  const double context = mean_context_tokens(sequence_tokens, AttentionMask::kCausal);
  std::vector<double> weights;
  for (const auto& c : costs) weights.push_back(c.matmul_flops_per_token + c.attention_flops_per_token(context));
  // The tail the last stage carries beyond its layers: the head, and the MTP module (a layer,
  // its 2h x h projection and the shared head once more).
  const double head = 2.0 * model.hidden * model.vocab;
  double tail = head;
  if (mtp) tail += weights.back() + 2.0 * 2.0 * model.hidden * model.hidden + head;
  weights.push_back(tail);
  auto sizes = balanced_partition(weights, stages);
  sizes.back() -= 1;  // the tail item is not a layer
  // Every stage must hold a layer; the partition may leave the tail alone on the last stage.
  for (int s = stages - 1; s > 0 && sizes[s] == 0; --s) {
    sizes[s] = 1;
    sizes[s - 1] -= 1;
  }
  return explicit_stage_layout(model, sizes, mtp, where);
}

StageLayout explicit_stage_layout(const Model& model, const std::vector<int>& sizes, bool mtp, const std::string& where) {
  check_stages(model, static_cast<int>(sizes.size()), where);
  StageLayout out;
  out.mtp = mtp;
  int next = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    if (sizes[s] < 1)
      throw core::InputError(where + "/" + std::to_string(s), std::to_string(sizes[s]) + " is not allowed; every stage holds at least one layer");
    out.first_layer.push_back(next);
    out.layers.push_back(sizes[s]);
    next += sizes[s];
  }
  if (next != model.layers)
    throw core::InputError(where, "the stages hold " + std::to_string(next) + " layers; " + model.display_name + " has " +
                                      std::to_string(model.layers));
  return out;
}

}  // namespace workload
