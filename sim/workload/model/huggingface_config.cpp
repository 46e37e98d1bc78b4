#include "workload/model/huggingface_config.hpp"

#include <algorithm>
#include <filesystem>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace workload {

namespace {

// Field access with HuggingFace's conventions: integers that may be absent (a default) or null.
class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& config, std::string origin) : c_(config), origin_(std::move(origin)) {}

  int integer(const std::string& key) const {
    const auto it = c_.find(key);
    if (it == c_.end()) throw core::InputError(origin_ + ": /" + key, "missing; a " + architecture() + " config has it");
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 100'000'000)
      throw core::InputError(origin_ + ": /" + key, core::describe(*it) + " is not allowed; expected an integer from 0 to 100,000,000");
    return it->get<int>();
  }
  int integer(const std::string& key, int fallback) const {
    const auto it = c_.find(key);
    return it == c_.end() || it->is_null() ? fallback : integer(key);
  }
  bool boolean(const std::string& key, bool fallback) const {
    const auto it = c_.find(key);
    if (it == c_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw core::InputError(origin_ + ": /" + key, core::describe(*it) + " is not allowed; expected true or false");
    return it->get<bool>();
  }
  std::string architecture() const { return c_.at("architectures").at(0).get<std::string>(); }

 private:
  const nlohmann::json& c_;
  std::string origin_;
};

Attention gqa(const ConfigReader& r, int hidden, bool qkv_bias) {
  Attention a;
  a.kind = AttentionKind::kGqa;
  a.heads = r.integer("num_attention_heads");
  a.kv_heads = r.integer("num_key_value_heads", a.heads);
  a.head_dim = r.integer("head_dim", a.heads > 0 ? hidden / a.heads : 0);
  a.qkv_bias = qkv_bias;
  return a;
}

}  // namespace

const std::vector<std::string>& huggingface_architectures() {
  static const std::vector<std::string> names = {"LlamaForCausalLM",    "Qwen2ForCausalLM",   "Qwen3ForCausalLM",
                                                 "Qwen3MoeForCausalLM", "MixtralForCausalLM", "DeepseekV2ForCausalLM",
                                                 "DeepseekV3ForCausalLM"};
  return names;
}

Model model_from_huggingface_config(const nlohmann::json& config, const std::string& origin) {
  if (!config.is_object()) throw core::InputError(origin + ": /", core::describe(config) + " is not allowed; expected a config.json object");
  const auto arch = config.find("architectures");
  if (arch == config.end() || !arch->is_array() || arch->empty() || !(*arch)[0].is_string())
    throw core::InputError(origin + ": /architectures", "missing; expected [\"LlamaForCausalLM\"] or another supported family");
  const std::string family = (*arch)[0].get<std::string>();
  const auto& known = huggingface_architectures();
  if (std::find(known.begin(), known.end(), family) == known.end())
    throw core::InputError(origin + ": /architectures/0", "'" + family + "' is not supported; " + core::allowed_list(family, known));
  const ConfigReader r(config, origin);

  Model m;
  m.name = std::filesystem::path(origin).parent_path().filename().string();
  if (m.name.empty()) m.name = std::filesystem::path(origin).stem().string();
  m.display_name = m.name;
  m.layers = r.integer("num_hidden_layers");
  m.hidden = r.integer("hidden_size");
  m.vocab = r.integer("vocab_size");
  m.tied_embeddings = r.boolean("tie_word_embeddings", false);
  m.dense_ffn = r.integer("intermediate_size");
  m.max_context_tokens = r.integer("max_position_embeddings", 0);
  if (m.layers < 1 || m.hidden < 1 || m.vocab < 1)
    throw core::InputError(origin + ": /num_hidden_layers", "a model needs layers, a hidden size and a vocabulary above 0");

  if (family == "DeepseekV2ForCausalLM" || family == "DeepseekV3ForCausalLM") {
    Attention& a = m.attention;
    a.kind = AttentionKind::kMla;
    a.heads = r.integer("num_attention_heads");
    a.q_lora_rank = r.integer("q_lora_rank", 0);  // null in the Lite models: queries projected directly
    a.kv_lora_rank = r.integer("kv_lora_rank");
    a.qk_nope_head_dim = r.integer("qk_nope_head_dim");
    a.qk_rope_head_dim = r.integer("qk_rope_head_dim");
    a.v_head_dim = r.integer("v_head_dim");
    Moe e;
    e.routed_experts = r.integer("n_routed_experts");
    e.shared_experts = r.integer("n_shared_experts", 0);
    e.active_routed_experts = r.integer("num_experts_per_tok");
    e.expert_ffn = r.integer("moe_intermediate_size");
    e.groups = r.integer("n_group", 1);
    e.groups_per_token = r.integer("topk_group", e.groups);
    m.moe = e;
    m.dense_layers = r.integer("first_k_dense_replace", 0);
    m.mtp_modules = r.integer("num_nextn_predict_layers", 0);
  } else if (family == "Qwen3MoeForCausalLM" || family == "MixtralForCausalLM") {
    m.attention = gqa(r, m.hidden, false);
    Moe e;
    const bool mixtral = family == "MixtralForCausalLM";
    e.routed_experts = r.integer(mixtral ? "num_local_experts" : "num_experts");
    e.active_routed_experts = r.integer("num_experts_per_tok");
    e.expert_ffn = mixtral ? m.dense_ffn : r.integer("moe_intermediate_size");
    m.moe = e;
    if (!mixtral) {
      if (r.integer("decoder_sparse_step", 1) != 1)
        throw core::InputError(origin + ": /decoder_sparse_step", "only 1 (every layer MoE) is supported");
      if (config.contains("mlp_only_layers") && !config["mlp_only_layers"].empty())
        throw core::InputError(origin + ": /mlp_only_layers", "dense layers among MoE ones are not supported; expected []");
    }
  } else {
    // Qwen2 biases its q, k and v projections; Llama where attention_bias says; Qwen3 does not.
    const bool bias = family == "Qwen2ForCausalLM" || (family == "LlamaForCausalLM" && r.boolean("attention_bias", false));
    m.attention = gqa(r, m.hidden, bias);
    m.dense_layers = m.layers;
  }
  if (m.moe) {
    if (m.moe->routed_experts < 1 || m.moe->active_routed_experts < 1 || m.moe->active_routed_experts > m.moe->routed_experts)
      throw core::InputError(origin + ": /num_experts_per_tok", std::to_string(m.moe->active_routed_experts) +
                                                                   " is not allowed; from 1 to the routed experts");
    if (m.moe->groups < 1 || m.moe->routed_experts % m.moe->groups != 0 || m.moe->groups_per_token > m.moe->groups)
      throw core::InputError(origin + ": /n_group", "the expert groups must divide the experts, and topk_group be at most n_group");
  }
  if (m.attention.kind == AttentionKind::kGqa &&
      (m.attention.heads < 1 || m.attention.kv_heads < 1 || m.attention.heads % m.attention.kv_heads != 0))
    throw core::InputError(origin + ": /num_key_value_heads", std::to_string(m.attention.kv_heads) + " is not allowed; it must divide the " +
                                                                 std::to_string(m.attention.heads) + " attention heads");
  return m;
}

Model read_huggingface_config(const std::string& path) { return model_from_huggingface_config(core::read_json_file(path), path); }

}  // namespace workload
