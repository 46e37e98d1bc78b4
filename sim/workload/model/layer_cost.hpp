#pragma once
// Parameters, FLOPs and bytes of each transformer layer of a Model, counted from its shapes.
// Matmul FLOPs are 2 per multiply-add; attention's score and value products are counted apart
// because they grow with the context and, for causal masks, cover only the lower triangle.
#include <algorithm>
#include <vector>

#include "workload/model/model.hpp"

namespace workload {

enum class AttentionMask { kCausal, kFull };

struct ParameterCount {
  double attention = 0;    // projection matrices
  double ffn_total = 0;    // dense FFN, or all experts plus the gate
  double ffn_active = 0;   // what one token touches: dense FFN, or shared + top-k experts + gate
  double elementwise = 0;  // RMSNorm weights and biases: no matmul FLOPs

  double total() const { return attention + ffn_total + elementwise; }
  double active() const { return attention + ffn_active + elementwise; }
  double active_matmul() const { return attention + ffn_active; }
};

struct LayerCost {
  int index = 0;
  bool moe = false;
  ParameterCount params;
  double matmul_flops_per_token = 0;       // forward, active weights only
  double kv_cache_elements_per_token = 0;  // per token the cache holds
  int attention_window_tokens = 0;         // 0: the whole context; else the most recent tokens (Model)

  // Keys a token sees with `context_tokens` before and including it: all, or the window.
  double attended_tokens(double context_tokens) const {
    return attention_window_tokens > 0 ? std::min(context_tokens, double(attention_window_tokens)) : context_tokens;
  }
  // Forward FLOPs of QK^T and AV for one token attending over `context_tokens` keys (at most the window).
  double attention_flops_per_token(double context_tokens) const {
    return attention_flops_per_key_ * attended_tokens(context_tokens);
  }
  // KV-cache elements of one sequence of `context_tokens`: a windowed layer keeps its window only.
  double kv_cache_elements(double context_tokens) const {
    return kv_cache_elements_per_token * attended_tokens(context_tokens);
  }
  // (query, key) pairs when `new_tokens` follow `before_tokens` under a causal mask: each new
  // token sees what precedes it and itself, at most the window.
  double causal_pairs(double new_tokens, double before_tokens) const;
  // Keys one query attends to on average in a sequence of `sequence_tokens` (mean_context_tokens
  // below, within the window).
  double mean_attended_tokens(double sequence_tokens, AttentionMask mask) const;
  double attention_flops_per_key_ = 0;
};

std::vector<LayerCost> layer_costs(const Model& model);
ParameterCount layer_parameters(const Model& model, bool moe_layer);

// Keys one query attends to on average in a sequence of `sequence_tokens`: all of them for a
// full mask, (s + 1) / 2 for a causal one (the lower triangle with its diagonal).
double mean_context_tokens(double sequence_tokens, AttentionMask mask);

struct ModelParameters {
  double embedding = 0;
  double lm_head = 0;
  double final_norm = 0;
  double layers_total = 0;
  double layers_active = 0;
  double mtp_total = 0;  // not part of total(): the MTP modules are reported apart, as DeepSeek does

  double total() const { return embedding + lm_head + final_norm + layers_total; }
  double active() const { return embedding + lm_head + final_norm + layers_active; }
};

ModelParameters model_parameters(const Model& model);

// The share of a layer's KV cache one GPU of a TP group holds and reads: MLA's latent is whole on
// every GPU; GQA's KV heads are split over min(tp, kv_heads) GPUs and copied beyond.
inline double kv_share_per_gpu(const Attention& a, int tp) {
  return a.kind == AttentionKind::kMla ? 1.0 : std::max(1.0, double(a.kv_heads) / tp) / a.kv_heads;
}

// One token as the dispatch sends it in FP8: a byte per channel and a 4-byte scale per 128
// channels (the recipe's fine-grained quantisation).
inline double fp8_token_bytes(double hidden) { return hidden + hidden / 128.0 * 4; }

}  // namespace workload
