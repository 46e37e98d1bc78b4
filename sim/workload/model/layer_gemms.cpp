#include "workload/model/layer_gemms.hpp"

#include <algorithm>
#include <cmath>

namespace workload {

std::vector<Weight> attention_weights(const Model& m) {
  const Attention& a = m.attention;
  const double h = m.hidden;
  if (a.kind == AttentionKind::kMla) {
    std::vector<Weight> w;
    const double kv_down = a.kv_lora_rank + a.qk_rope_head_dim;
    // q_a and kv_a share their input but run as two GEMMs, as in DeepSeek's profile.
    if (a.q_lora_rank > 0) {
      w.push_back({double(a.q_lora_rank), h});
      w.push_back({kv_down, h});
      w.push_back({double(a.heads) * a.qk_head_dim(), double(a.q_lora_rank)});
    } else {
      w.push_back({kv_down, h});
      w.push_back({double(a.heads) * a.qk_head_dim(), h});
    }
    w.push_back({double(a.heads) * (a.qk_nope_head_dim + a.v_head_dim), double(a.kv_lora_rank)});
    w.push_back({h, double(a.heads) * a.v_head_dim});
    return w;
  }
  return {{double(a.heads + 2 * a.kv_heads) * a.head_dim, h}, {h, double(a.heads) * a.head_dim}};
}

int attention_replicated_weights(const Model& m) {
  const Attention& a = m.attention;
  if (a.kind != AttentionKind::kMla) return 0;
  return a.q_lora_rank > 0 ? 2 : 1;
}

std::vector<Weight> attention_up_projections(const Model& m) {
  const Attention& a = m.attention;
  if (a.kind != AttentionKind::kMla) return {};
  std::vector<Weight> w;
  if (a.q_lora_rank > 0) w.push_back({double(a.heads) * a.qk_head_dim(), double(a.q_lora_rank)});
  w.push_back({double(a.heads) * (a.qk_nope_head_dim + a.v_head_dim), double(a.kv_lora_rank)});
  return w;
}

std::vector<Weight> gated_ffn_weights(const Model& m, double intermediate) {
  return {{2 * intermediate, double(m.hidden)}, {double(m.hidden), intermediate}};
}

std::vector<Weight> tensor_parallel_shard(std::vector<Weight> weights, int tp, int replicated) {
  for (std::size_t i = static_cast<std::size_t>(replicated); i < weights.size(); ++i) {
    if (i + 1 == weights.size())
      weights[i].in /= tp;
    else
      weights[i].out /= tp;
  }
  return weights;
}

double forward_flops(const std::vector<Weight>& weights, double rows) {
  double flops = 0;
  for (const auto& w : weights) flops += 2 * w.out * w.in * rows;
  return flops;
}

double dense_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                             double rows, int sms, hw::GemmPrecision p) {
  double t = 0;
  if (rows > 0)
    for (const auto& w : weights) t += hw::gemm_seconds(gpu, {rows, w.out, w.in, 1, hw::GemmKind::kDense, p}, sms, c);
  return t;
}

GemmSeconds dense_gemm_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                               double rows, int sms, hw::GemmPrecision p) {
  GemmSeconds t;
  if (rows <= 0) return t;
  t.forward_s = dense_forward_seconds(gpu, c, weights, rows, sms, p);
  for (const auto& w : weights) {
    t.input_gradient_s += hw::gemm_seconds(gpu, {rows, w.in, w.out, 1, hw::GemmKind::kDense, p}, sms, c);
    t.weight_gradient_s += hw::gemm_seconds(gpu, {w.out, w.in, rows, 1, hw::GemmKind::kWeightGradient, p}, sms, c);
  }
  return t;
}

double grouped_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                               int groups, double rows_per_group, hw::GemmKind layout, int sms, hw::GemmPrecision p) {
  if (rows_per_group <= 0 || groups <= 0) return 0;
  const double rows =
      layout == hw::GemmKind::kGroupedContiguous ? std::ceil(rows_per_group / 128) * 128 : std::ceil(rows_per_group);
  double t = 0;
  for (const auto& w : weights) t += hw::gemm_seconds(gpu, {rows, w.out, w.in, groups, layout, p}, sms, c);
  return t;
}

double touched_grouped_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c,
                                       const std::vector<Weight>& weights, double groups, double rows,
                                       hw::GemmKind layout, int sms, hw::GemmPrecision p) {
  if (rows <= 0 || groups <= 0) return 0;
  groups = std::max(1.0, groups);
  const double below = std::floor(groups), above = std::ceil(groups);
  auto seconds = [&](double n) {
    return grouped_forward_seconds(gpu, c, weights, static_cast<int>(n), rows / n, layout, sms, p);
  };
  if (below == above) return seconds(below);
  return seconds(below) + (groups - below) * (seconds(above) - seconds(below));
}

GemmSeconds grouped_gemm_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                                 int groups, double rows_per_group, int sms, hw::GemmPrecision p) {
  GemmSeconds t;
  if (rows_per_group <= 0 || groups <= 0) return t;
  t.forward_s =
      grouped_forward_seconds(gpu, c, weights, groups, rows_per_group, hw::GemmKind::kGroupedContiguous, sms, p);
  const double rows = std::ceil(rows_per_group / 128) * 128;  // each group aligned to the layout's 128 rows
  for (const auto& w : weights) {
    t.input_gradient_s +=
        hw::gemm_seconds(gpu, {rows, w.in, w.out, groups, hw::GemmKind::kGroupedContiguous, p}, sms, c);
    t.weight_gradient_s +=
        hw::gemm_seconds(gpu, {w.out, w.in, rows_per_group, groups, hw::GemmKind::kWeightGradient, p}, sms, c);
  }
  return t;
}

}  // namespace workload
