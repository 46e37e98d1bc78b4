#include "workload/model.hpp"

#include "core/catalogue.hpp"

namespace workload {

namespace {

Attention mla(int heads, int q_lora, int kv_lora, int nope, int rope, int v) {
  Attention a;
  a.kind = AttentionKind::kMla;
  a.heads = heads;
  a.q_lora_rank = q_lora;
  a.kv_lora_rank = kv_lora;
  a.qk_nope_head_dim = nope;
  a.qk_rope_head_dim = rope;
  a.v_head_dim = v;
  return a;
}

Attention gqa(int heads, int kv_heads, int head_dim, bool qkv_bias) {
  Attention a;
  a.kind = AttentionKind::kGqa;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  a.qkv_bias = qkv_bias;
  return a;
}

const std::vector<Model>& catalogue() {
  static const std::vector<Model> models = {
      // deepseek-ai/DeepSeek-V3 config.json: 61 layers (first_k_dense_replace 3), hidden 7168, MLA
      // 128 heads, q_lora 1536, kv_lora 512, qk_nope 128, qk_rope 64, v_head 128; dense FFN 18432;
      // 1 shared + 256 routed experts of 2048, 8 active, 8 groups, topk_group 4; vocab 129280;
      // num_nextn_predict_layers 1.
      {"deepseek-v3", "DeepSeek-V3", 61, 3, 7168, mla(128, 1536, 512, 128, 64, 128), 18432,
       Moe{256, 1, 8, 2048, 8, 4}, 129280, 1},
      // deepseek-ai/DeepSeek-V2 config.json: 60 layers (first_k_dense_replace 1), hidden 5120, same
      // MLA dims; dense FFN 12288; 2 shared + 160 routed experts of 1536, 6 active, 8 groups, 3 per
      // token; vocab 102400.
      {"deepseek-v2", "DeepSeek-V2", 60, 1, 5120, mla(128, 1536, 512, 128, 64, 128), 12288,
       Moe{160, 2, 6, 1536, 8, 3}, 102400, 0},
      // Qwen/Qwen2.5-72B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, head dim 128,
      // q/k/v biases, intermediate 29568, vocab 152064.
      {"qwen2.5-72b", "Qwen2.5-72B", 80, 80, 8192, gqa(64, 8, 128, true), 29568, std::nullopt, 152064, 0},
      // meta-llama/Llama-3.1-405B config.json: 126 layers, hidden 16384, 128 heads, 8 KV heads,
      // head dim 128, intermediate 53248, vocab 128256.
      {"llama-3.1-405b", "LLaMA-3.1-405B", 126, 126, 16384, gqa(128, 8, 128, false), 53248, std::nullopt, 128256,
       0},
  };
  return models;
}

}  // namespace

std::vector<std::string> model_names() { return core::names_of(catalogue()); }

const Model& model_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(catalogue(), name, "model", where);
}

}  // namespace workload
