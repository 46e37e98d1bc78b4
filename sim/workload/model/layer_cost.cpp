#include "workload/model/layer_cost.hpp"

#include <algorithm>

namespace workload {

namespace {

double attention_parameters(const Model& m) {
  const Attention& a = m.attention;
  const double h = m.hidden;
  if (a.kind == AttentionKind::kMla) {
    const double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + double(a.q_lora_rank) * a.heads * a.qk_head_dim()
                                       : h * a.heads * a.qk_head_dim();
    const double kv_down = h * (a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_up = double(a.kv_lora_rank) * a.heads * (a.qk_nope_head_dim + a.v_head_dim);
    const double out = double(a.heads) * a.v_head_dim * h;
    return q + kv_down + kv_up + out;
  }
  const double q = h * a.heads * a.head_dim;
  const double kv = 2 * h * a.kv_heads * a.head_dim;
  const double out = double(a.heads) * a.head_dim * h;
  return q + kv + out;
}

// Norm weights (the two around attention and FFN, plus MLA's norms of its latents) and biases.
double elementwise_parameters(const Model& m) {
  const Attention& a = m.attention;
  double n = 2.0 * m.hidden;
  if (a.kind == AttentionKind::kMla) n += a.q_lora_rank + a.kv_lora_rank;
  if (a.qkv_bias) n += double(a.heads + 2 * a.kv_heads) * a.head_dim;
  return n;
}

// A gated (SwiGLU) FFN has three matrices: gate, up and down.
double gated_ffn_parameters(double hidden, double intermediate) { return 3 * hidden * intermediate; }

double kv_cache_elements(const Attention& a) {
  // MLA caches the compressed latent and the decoupled RoPE key; GQA caches K and V per KV head.
  return a.kind == AttentionKind::kMla ? a.kv_lora_rank + a.qk_rope_head_dim : 2.0 * a.kv_heads * a.head_dim;
}

}  // namespace

ParameterCount layer_parameters(const Model& m, bool moe_layer) {
  ParameterCount p;
  p.attention = attention_parameters(m);
  p.elementwise = elementwise_parameters(m);
  if (moe_layer) {
    const Moe& e = *m.moe;
    const double expert = gated_ffn_parameters(m.hidden, e.expert_ffn);
    const double gate = double(m.hidden) * e.routed_experts;
    p.ffn_total = expert * (e.routed_experts + e.shared_experts) + gate;
    p.ffn_active = expert * (e.active_routed_experts + e.shared_experts) + gate;
  } else {
    p.ffn_total = p.ffn_active = gated_ffn_parameters(m.hidden, m.dense_ffn);
  }
  return p;
}

std::vector<LayerCost> layer_costs(const Model& m) {
  std::vector<LayerCost> layers;
  layers.reserve(m.layers);
  const Attention& a = m.attention;
  for (int i = 0; i < m.layers; ++i) {
    LayerCost c;
    c.index = i;
    c.moe = m.is_moe_layer(i);
    c.params = layer_parameters(m, c.moe);
    c.matmul_flops_per_token = 2 * c.params.active_matmul();  // one multiply-add per active weight
    c.kv_cache_elements_per_token = kv_cache_elements(a);
    c.attention_window_tokens = m.attention_window(i);
    // QK^T: heads x qk_dim multiply-adds per key; AV: heads x v_dim per key.
    c.attention_flops_per_key_ = 2.0 * a.heads * (a.qk_head_dim() + a.value_head_dim());
    layers.push_back(c);
  }
  return layers;
}

double mean_context_tokens(double s, AttentionMask mask) { return mask == AttentionMask::kFull ? s : (s + 1) / 2; }

double LayerCost::causal_pairs(double new_tokens, double before) const {
  const double s = new_tokens;
  if (attention_window_tokens <= 0) return s * before + s * (s + 1) / 2;
  // The first n new tokens see all before them; the rest see the window.
  const double w = attention_window_tokens;
  const double n = std::clamp(w - before, 0.0, s);
  return n * before + n * (n + 1) / 2 + (s - n) * w;
}

double LayerCost::mean_attended_tokens(double s, AttentionMask mask) const {
  if (attention_window_tokens <= 0 || s <= 0) return mean_context_tokens(s, mask);
  return mask == AttentionMask::kFull ? attended_tokens(s) : causal_pairs(s, 0) / s;
}

ModelParameters model_parameters(const Model& m) {
  ModelParameters p;
  p.embedding = double(m.vocab) * m.hidden;
  p.lm_head = m.tied_embeddings ? 0.0 : double(m.vocab) * m.hidden;  // a tied head is the embedding
  p.final_norm = m.hidden;
  for (const auto& layer : layer_costs(m)) {
    p.layers_total += layer.params.total();
    p.layers_active += layer.params.active();
  }
  // DeepSeek-V3's MTP module: a projection of [hidden; embedding] (2h x h), two norms on its
  // inputs, and one transformer layer (MoE when the model is MoE); embedding and head are shared.
  const double mtp_layer = layer_parameters(m, m.moe.has_value()).total();
  p.mtp_total = m.mtp_modules * (mtp_layer + 2.0 * m.hidden * m.hidden + 2.0 * m.hidden);
  return p;
}

}  // namespace workload
