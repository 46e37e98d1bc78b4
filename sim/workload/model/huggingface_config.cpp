#include "workload/model/huggingface_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "workload/model/layer_cost.hpp"

namespace workload {

namespace {

// Field access with HuggingFace's conventions: integers that may be absent (a default) or null.
// `prefix` is where the fields sit in the file ("" or "/text_config").
class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& config, std::string origin, std::string prefix, std::string architecture)
      : c_(config), origin_(std::move(origin)), prefix_(std::move(prefix)), architecture_(std::move(architecture)) {}

  std::string where(const std::string& key) const { return origin_ + ": " + prefix_ + "/" + key; }
  bool has(const std::string& key) const {
    const auto it = c_.find(key);
    return it != c_.end() && !it->is_null();
  }
  const nlohmann::json& at(const std::string& key) const { return c_.at(key); }

  int integer(const std::string& key) const {
    const auto it = c_.find(key);
    if (it == c_.end()) throw core::InputError(where(key), "missing; a " + architecture_ + " config has it");
    return checked(*it, where(key));
  }
  int integer(const std::string& key, int fallback) const { return has(key) ? integer(key) : fallback; }
  // A size that 0 would make vanish from the model (a head of no width, no FFN, no context).
  int positive(const std::string& key) const {
    const int x = integer(key);
    if (x < 1) throw core::InputError(where(key), "0 is not allowed; expected an integer from 1 to 100,000,000");
    return x;
  }
  int positive(const std::string& key, int fallback) const { return has(key) ? positive(key) : fallback; }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const auto& v = c_.at(key);
    if (!v.is_boolean())
      throw core::InputError(where(key), core::describe(v) + " is not allowed; expected true or false");
    return v.get<bool>();
  }
  // A list of one entry per layer (`layers` of them); empty where the key is absent, null or [].
  std::vector<nlohmann::json> per_layer(const std::string& key, int layers) const {
    if (!has(key)) return {};
    const auto& v = c_.at(key);
    if (!v.is_array())
      throw core::InputError(where(key), core::describe(v) + " is not allowed; expected a list, one entry per layer");
    if (v.empty()) return {};
    if (static_cast<int>(v.size()) != layers)
      throw core::InputError(where(key), "has " + std::to_string(v.size()) + " entries; expected one per layer (" +
                                             std::to_string(layers) + ")");
    return {v.begin(), v.end()};
  }
  static int checked(const nlohmann::json& v, const std::string& at) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 100'000'000)
      throw core::InputError(at, core::describe(v) + " is not allowed; expected an integer from 0 to 100,000,000");
    return v.get<int>();
  }

 private:
  const nlohmann::json& c_;
  std::string origin_, prefix_, architecture_;
};

Attention gqa(const ConfigReader& r, int hidden, bool qkv_bias) {
  Attention a;
  a.kind = AttentionKind::kGqa;
  a.heads = r.integer("num_attention_heads");
  a.kv_heads = r.integer("num_key_value_heads", a.heads);
  a.head_dim =
      r.positive("head_dim", a.heads > 0 ? hidden / a.heads : 0);  // Gemma's and gpt-oss's differ from hidden / heads
  a.qkv_bias = qkv_bias;
  return a;
}

// Per layer from `layer_types` ("full_attention", "sliding_attention", "chunked_attention"):
// the window of its kind, 0 for full attention.
std::vector<int> windows_from_layer_types(const ConfigReader& r, int layers, int sliding_window, int chunk) {
  std::vector<int> windows;
  const auto types = r.per_layer("layer_types", layers);
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string at = r.where("layer_types/" + std::to_string(i));
    const std::string type = types[i].is_string() ? types[i].get<std::string>() : core::describe(types[i]);
    const int window = type == "full_attention"      ? 0
                       : type == "sliding_attention" ? sliding_window
                       : type == "chunked_attention" ? chunk
                                                     : -1;
    if (window < 0)
      throw core::InputError(
          at, "'" + type + "' is not allowed; " +
                  core::allowed_list(type, {"full_attention", "sliding_attention", "chunked_attention"}));
    if (type != "full_attention" && window == 0)
      throw core::InputError(at, "'" + type + "' needs its window (" +
                                     (type == "sliding_attention" ? "sliding_window" : "attention_chunk_size") +
                                     "), which the config does not give");
    windows.push_back(window);
  }
  return windows;
}

// Every layer whose index satisfies `windowed` sees `window` tokens, the others all.
template <class Pred>
std::vector<int> windows_where(int layers, int window, Pred windowed) {
  std::vector<int> windows(static_cast<std::size_t>(layers), 0);
  if (window > 0)
    for (int i = 0; i < layers; ++i) windows[static_cast<std::size_t>(i)] = windowed(i) ? window : 0;
  return windows;
}

// "7.24" for 7.24e9: three significant figures.
std::string billions(double parameters) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", parameters / 1e9);
  return s;
}

// The name a model from a config goes by: the last part of `_name_or_path` (the hub repository
// or folder it was saved from), else its `model_type` and size in billions of parameters (total,
// and active for an MoE model).
void name_model(Model& m, const nlohmann::json& config, const std::string& family) {
  if (const auto it = config.find("_name_or_path"); it != config.end() && it->is_string()) {
    std::string path = it->get<std::string>();
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string last = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    if (!last.empty()) {
      m.name = m.display_name = last;
      return;
    }
  }
  const auto type = config.find("model_type");
  const std::string kind = type != config.end() && type->is_string() && !type->get<std::string>().empty()
                               ? type->get<std::string>()
                               : family;
  const auto p = model_parameters(m);
  std::string size = billions(p.total());
  if (m.moe) size += "b-a" + billions(p.active());
  m.name = kind + "-" + size + "b";
  m.display_name = kind + " " + billions(p.total()) + "B" + (m.moe ? " (" + billions(p.active()) + "B active)" : "");
}

}  // namespace

const std::vector<std::string>& huggingface_architectures() {
  static const std::vector<std::string> names = {"LlamaForCausalLM",
                                                 "MistralForCausalLM",
                                                 "Qwen2ForCausalLM",
                                                 "Qwen3ForCausalLM",
                                                 "Gemma2ForCausalLM",
                                                 "Gemma3ForCausalLM",
                                                 "Gemma3ForConditionalGeneration",
                                                 "Qwen3MoeForCausalLM",
                                                 "MixtralForCausalLM",
                                                 "GptOssForCausalLM",
                                                 "Llama4ForConditionalGeneration",
                                                 "DeepseekV2ForCausalLM",
                                                 "DeepseekV3ForCausalLM"};
  return names;
}

Model model_from_huggingface_config(const nlohmann::json& config, const std::string& origin) {
  if (!config.is_object())
    throw core::InputError(origin + ": /", core::describe(config) + " is not allowed; expected a config.json object");
  const auto arch = config.find("architectures");
  if (arch == config.end() || !arch->is_array() || arch->empty() || !(*arch)[0].is_string())
    throw core::InputError(origin + ": /architectures",
                           "missing; expected [\"LlamaForCausalLM\"] or another supported family");
  const std::string family = (*arch)[0].get<std::string>();
  const auto& known = huggingface_architectures();
  if (std::find(known.begin(), known.end(), family) == known.end())
    throw core::InputError(origin + ": /architectures/0",
                           "'" + family + "' is not supported; " + core::allowed_list(family, known));
  // The multimodal families hold their language model's fields in text_config.
  const bool multimodal = family == "Llama4ForConditionalGeneration" || family == "Gemma3ForConditionalGeneration";
  const auto text = config.find("text_config");
  if (multimodal && (text == config.end() || !text->is_object()))
    throw core::InputError(origin + ": /text_config",
                           "missing; a " + family + " config holds its language model there");
  const ConfigReader r(multimodal ? *text : config, origin, multimodal ? "/text_config" : "", family);
  const ConfigReader top(config, origin, "", family);
  const bool gemma = family.rfind("Gemma", 0) == 0;
  const bool gemma3 = family.rfind("Gemma3", 0) == 0;

  Model m;
  m.layers = r.integer("num_hidden_layers");
  m.hidden = r.integer("hidden_size");
  m.vocab = gemma3 ? r.integer("vocab_size", 262'208)
                   : r.integer("vocab_size");  // Gemma 3's published configs leave the default out
  // Gemma ties its head to the embedding unless told otherwise; the multimodal configs say so at the top.
  m.tied_embeddings = r.boolean("tie_word_embeddings", top.boolean("tie_word_embeddings", gemma));
  m.dense_ffn = r.positive("intermediate_size");
  // Gemma 3's published configs leave its 128K context out too (transformers' default, the
  // Gemma 3 report's 128K).
  m.max_context_tokens = r.positive("max_position_embeddings", gemma3 ? 131'072 : 0);
  if (m.layers < 1 || m.hidden < 1 || m.vocab < 1)
    throw core::InputError(r.where("num_hidden_layers"),
                           "a model needs layers, a hidden size and a vocabulary above 0");

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
    if (mixtral) {
      m.attention_window_tokens = windows_where(m.layers, r.integer("sliding_window", 0), [](int) { return true; });
    } else {
      if (r.integer("decoder_sparse_step", 1) != 1)
        throw core::InputError(r.where("decoder_sparse_step"), "only 1 (every layer MoE) is supported");
      if (config.contains("mlp_only_layers") && !config["mlp_only_layers"].empty())
        throw core::InputError(r.where("mlp_only_layers"),
                               "dense layers among MoE ones are not supported; expected []");
    }
  } else if (family == "GptOssForCausalLM") {
    // Every layer MoE; queries, keys, values and the output projection biased; sliding-window
    // layers alternating with full ones (layer_types, else the first of each pair sliding).
    m.attention = gqa(r, m.hidden, r.boolean("attention_bias", true));
    Moe e;
    e.routed_experts = r.integer("num_local_experts");
    e.active_routed_experts =
        r.has("num_experts_per_tok") ? r.integer("num_experts_per_tok") : r.integer("experts_per_token");
    e.expert_ffn = m.dense_ffn;
    m.moe = e;
    const int window = r.integer("sliding_window", 0);
    m.attention_window_tokens = windows_from_layer_types(r, m.layers, window, 0);
    if (m.attention_window_tokens.empty())
      m.attention_window_tokens = windows_where(m.layers, window, [](int i) { return i % 2 == 0; });
  } else if (family == "Llama4ForConditionalGeneration") {
    // Experts of intermediate_size with one shared expert; every interleave_moe_layer_step-th
    // layer MoE and the others dense, of intermediate_size_mlp. Layers with RoPE attend within
    // chunks of attention_chunk_size; every no_rope_layer_interval-th (NoPE) over the whole context.
    m.attention = gqa(r, m.hidden, r.boolean("attention_bias", false));
    Moe e;
    e.routed_experts = r.integer("num_local_experts");
    e.active_routed_experts = r.integer("num_experts_per_tok");
    e.shared_experts = 1;
    e.expert_ffn = m.dense_ffn;
    m.moe = e;
    m.dense_ffn = r.integer("intermediate_size_mlp");
    m.moe_layer_step = r.integer("interleave_moe_layer_step", 1);
    if (m.moe_layer_step < 1)
      throw core::InputError(r.where("interleave_moe_layer_step"), "0 is not allowed; expected 1 or more");
    if (r.has("moe_layers") && r.at("moe_layers").is_array() && !r.at("moe_layers").empty()) {
      std::vector<int> expected, given;
      for (int l = 0; l < m.layers; ++l)
        if (m.is_moe_layer(l)) expected.push_back(l);
      for (const auto& v : r.at("moe_layers")) given.push_back(ConfigReader::checked(v, r.where("moe_layers")));
      if (given != expected)
        throw core::InputError(r.where("moe_layers"),
                               "is not allowed; only every interleave_moe_layer_step-th layer MoE is supported");
    }
    const int chunk = r.integer("attention_chunk_size", 0);
    std::vector<int> windows = windows_from_layer_types(r, m.layers, 0, chunk);
    if (windows.empty()) {
      const auto rope = r.per_layer("no_rope_layers", m.layers);
      const int interval = r.integer("no_rope_layer_interval", 4);
      windows = windows_where(m.layers, chunk, [&](int i) {
        if (!rope.empty())
          return ConfigReader::checked(rope[static_cast<std::size_t>(i)],
                                       r.where("no_rope_layers/" + std::to_string(i))) != 0;
        return interval < 1 || (i + 1) % interval != 0;
      });
    }
    m.attention_window_tokens = windows;
  } else {
    // Qwen2 biases its q, k and v projections; Llama where attention_bias says; Qwen3, Mistral and
    // Gemma do not.
    const bool bias =
        family == "Qwen2ForCausalLM" || (family == "LlamaForCausalLM" && r.boolean("attention_bias", false));
    m.attention = gqa(r, m.hidden, bias);
    m.dense_layers = m.layers;
    if (family == "MistralForCausalLM") {
      // Mistral 7B v0.1 attends within a 4,096-token window in every layer; later versions say null.
      m.attention_window_tokens = windows_where(m.layers, r.integer("sliding_window", 0), [](int) { return true; });
    } else if (gemma) {
      // Gemma 2: sliding and full layers alternate, the first sliding. Gemma 3: every
      // sliding_window_pattern-th layer full (6: five sliding to one full), its window 4,096
      // unless the config says (1,024 in the published ones). layer_types, where given, says it all.
      const int window = r.integer("sliding_window", gemma3 ? 4096 : 0);
      m.attention_window_tokens = windows_from_layer_types(r, m.layers, window, 0);
      if (m.attention_window_tokens.empty()) {
        const int pattern = gemma3 ? r.integer("sliding_window_pattern", 6) : 2;
        m.attention_window_tokens =
            windows_where(m.layers, window, [&](int i) { return pattern < 1 || (i + 1) % pattern != 0; });
      }
    }
  }
  if (std::all_of(m.attention_window_tokens.begin(), m.attention_window_tokens.end(), [](int w) { return w == 0; }))
    m.attention_window_tokens.clear();
  if (m.moe) {
    if (m.moe->routed_experts < 1 || m.moe->active_routed_experts < 1 ||
        m.moe->active_routed_experts > m.moe->routed_experts)
      throw core::InputError(r.where("num_experts_per_tok"), std::to_string(m.moe->active_routed_experts) +
                                                                 " is not allowed; from 1 to the routed experts");
    if (m.moe->groups < 1 || m.moe->routed_experts % m.moe->groups != 0 || m.moe->groups_per_token > m.moe->groups)
      throw core::InputError(r.where("n_group"),
                             "the expert groups must divide the experts, and topk_group be at most n_group");
  }
  if (m.attention.kind == AttentionKind::kGqa &&
      (m.attention.heads < 1 || m.attention.kv_heads < 1 || m.attention.heads % m.attention.kv_heads != 0))
    throw core::InputError(r.where("num_key_value_heads"), std::to_string(m.attention.kv_heads) +
                                                               " is not allowed; it must divide the " +
                                                               std::to_string(m.attention.heads) + " attention heads");
  name_model(m, config, family);
  return m;
}

Model read_huggingface_config(const std::string& path) {
  return model_from_huggingface_config(core::read_json_file(path), path);
}

}  // namespace workload
