#pragma once
// A transformer model as data, from its public configuration file: attention (MLA or GQA, over
// the whole context or a window of it per layer), dense and MoE feed-forward layers, vocabulary.
// Costs are derived in layer_cost.hpp.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace workload {

enum class AttentionKind { kMla, kGqa };

struct Attention {
  AttentionKind kind = AttentionKind::kGqa;
  int heads = 0;
  // GQA
  int kv_heads = 0;
  int head_dim = 0;
  bool qkv_bias = false;
  // MLA (DeepSeek-V2/V3)
  int q_lora_rank = 0;  // 0: queries projected directly from the hidden state
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;

  int qk_head_dim() const { return kind == AttentionKind::kMla ? qk_nope_head_dim + qk_rope_head_dim : head_dim; }
  int value_head_dim() const { return kind == AttentionKind::kMla ? v_head_dim : head_dim; }
};

struct Moe {
  int routed_experts = 0;
  int shared_experts = 0;
  int active_routed_experts = 0;  // top-k per token
  int expert_ffn = 0;             // intermediate size of one expert
  int groups = 1;                 // expert groups (nodes) for group-limited routing
  int groups_per_token = 1;
};

struct Model {
  std::string name;          // registry key, e.g. "deepseek-v3"
  std::string display_name;  // e.g. "DeepSeek-V3"
  int layers = 0;
  int dense_layers = 0;  // the first layers use the dense FFN; the rest are MoE (every moe_layer_step-th)
  int moe_layer_step =
      1;  // after the dense layers, every step-th layer is MoE, the others dense (Llama 4's interleave)
  int hidden = 0;
  Attention attention;
  int dense_ffn = 0;  // intermediate size of the gated (SwiGLU) dense FFN
  std::optional<Moe> moe;
  int vocab = 0;
  int mtp_modules = 0;           // multi-token-prediction modules, one transformer layer each
  bool tied_embeddings = false;  // the LM head reuses the embedding matrix
  int max_context_tokens = 0;    // max_position_embeddings; 0 where the config does not say
  // Per layer, the most recent tokens its attention sees (a sliding window, or a chunk of
  // chunked attention) and its KV cache keeps; 0 for the whole context. Empty: every layer sees
  // the whole context.
  std::vector<int> attention_window_tokens;

  bool is_moe_layer(int layer) const {
    return moe.has_value() && layer >= dense_layers && (layer - dense_layers + 1) % moe_layer_step == 0;
  }
  int moe_layer_count() const;
  int attention_window(int layer) const { return attention_window_tokens.empty() ? 0 : attention_window_tokens[layer]; }
};

const Model& model_by_name(const std::string& name, const std::string& where = "");
// A model's data as data/models/ holds it: {"display_name", "source", "huggingface_config":
// {...}}; errors name `where` (a file and pointer) and the field.
Model model_from_data(const nlohmann::json& doc, const std::string& where, const std::string& name);
std::vector<std::string> model_names();

}  // namespace workload
