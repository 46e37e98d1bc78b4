// The families added after Llama, Qwen, Mixtral and DeepSeek: Mistral, Gemma 2 and 3, Llama 4 and
// gpt-oss, each from a config.json of the shape the public checkpoints ship (the fields their
// files have, a few of those we ignore included), checked against the sizes their authors
// publish.
#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "studies/config/model_config.hpp"
#include "workload/model/huggingface_config.hpp"
#include "workload/model/kv_cache.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/training_flops.hpp"

using namespace workload;
using json = nlohmann::json;

namespace {

// mistralai/Mistral-7B-v0.1's config.json.
json mistral_7b() {
  return json::parse(R"({
    "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
    "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000})");
}

// google/gemma-2-9b's: no tie_word_embeddings (Gemma ties by default), head_dim 256 beside 3584 / 16.
json gemma2_9b() {
  return json::parse(R"({
    "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "attn_logit_softcapping": 50.0,
    "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
    "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096, "torch_dtype": "float32", "vocab_size": 256000})");
}

// google/gemma-3-27b-it's: the language model in text_config, which leaves vocab_size and the
// sliding-window pattern at their defaults.
json gemma3_27b() {
  return json::parse(R"({
    "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
    "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
                    "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
                    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
    "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "model_type": "siglip_vision_model",
                      "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}})");
}

// meta-llama/Llama-4-Scout-17B-16E's (Maverick: 128 experts, MoE every second layer).
json llama4(int experts, int moe_step) {
  json c = json::parse(R"({
    "architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 200080, "eoi_token_index": 200081,
    "image_token_index": 200092, "model_type": "llama4",
    "text_config": {"attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0, "bos_token_id": 200000,
                    "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
                    "interleave_moe_layer_step": 1, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
                    "max_position_embeddings": 10485760, "model_type": "llama4_text", "no_rope_layers": [],
                    "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48, "num_key_value_heads": 8,
                    "num_local_experts": 16, "output_router_logits": false, "pad_token_id": 200018, "rms_norm_eps": 1e-05,
                    "rope_theta": 500000.0, "router_aux_loss_coef": 0.001, "use_qk_norm": true, "vocab_size": 202048},
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0.dev0",
    "vision_config": {"hidden_size": 1408, "num_hidden_layers": 34, "model_type": "llama4_vision_model"}})");
  c["text_config"]["num_local_experts"] = experts;
  c["text_config"]["interleave_moe_layer_step"] = moe_step;
  return c;
}

// openai/gpt-oss-120b's (20b: 24 layers, 32 experts).
json gpt_oss(int layers, int experts) {
  json c = json::parse(R"({
    "architectures": ["GptOssForCausalLM"], "attention_bias": true, "attention_dropout": 0.0, "eos_token_id": 200002,
    "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "initial_context_length": 4096,
    "initializer_range": 0.02, "intermediate_size": 2880, "max_position_embeddings": 131072, "model_type": "gpt_oss",
    "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 36, "num_key_value_heads": 8,
    "num_local_experts": 128, "output_router_logits": false, "pad_token_id": 199999,
    "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                                       "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
    "rms_norm_eps": 1e-05, "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
    "tie_word_embeddings": false, "transformers_version": "4.55.0.dev0", "use_cache": true, "vocab_size": 201088})");
  c["num_hidden_layers"] = layers;
  c["num_local_experts"] = experts;
  json types = json::array();
  for (int i = 0; i < layers; ++i) types.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  c["layer_types"] = types;
  return c;
}

double billions(double x) { return x / 1e9; }

}  // namespace

TEST_CASE("Mistral 7B: 7.24B parameters, every layer within a 4,096-token window", "[huggingface]") {
  const Model m = model_from_huggingface_config(mistral_7b(), "config.json");
  // Mistral AI's "7.3B"; 7.24B in the published safetensors.
  CHECK(billions(model_parameters(m).total()) == Approx(7.24).epsilon(0.01));
  CHECK(m.attention.kv_heads == 8);
  CHECK(m.attention_window(0) == 4096);
  CHECK(m.attention_window(31) == 4096);
  // The cache stops growing at the window: 128 KiB per token of it (32 layers x 2 x 8 x 128 x 2 B).
  CHECK(kv_cache_bytes_per_sequence(m, 1000, 2) == 1000 * kv_cache_bytes_per_token(m, 2));
  CHECK(kv_cache_bytes_per_token(m, 2) == 32 * 2 * 8 * 128 * 2);
  CHECK(kv_cache_bytes_per_sequence(m, 32768, 2) == kv_cache_bytes_per_sequence(m, 4096, 2));
  // Attention FLOPs of a token stop at the window too; a short sequence is as without it.
  const auto layer = layer_costs(m).front();
  CHECK(layer.attention_flops_per_token(30000) == layer.attention_flops_per_token(4096));
  CHECK(layer.mean_attended_tokens(2048, AttentionMask::kCausal) ==
        Approx(mean_context_tokens(2048, AttentionMask::kCausal)));
  CHECK(layer.mean_attended_tokens(32768, AttentionMask::kCausal) < 4096);
  CHECK(layer.mean_attended_tokens(32768, AttentionMask::kCausal) > 3800);  // 4096 - 4096^2 / (2 x 32768), about
  // The same model with sliding_window null (v0.2 and later) sees the whole context.
  json v02 = mistral_7b();
  v02["sliding_window"] = nullptr;
  CHECK(model_from_huggingface_config(v02, "c.json").attention_window_tokens.empty());
}

TEST_CASE("Gemma 2 9B: 9.24B parameters, head_dim apart from hidden / heads, alternate sliding layers",
          "[huggingface]") {
  const Model m = model_from_huggingface_config(gemma2_9b(), "config.json");
  CHECK(m.attention.head_dim == 256);  // not 3584 / 16 = 224
  CHECK(m.tied_embeddings);            // Gemma's default, the file says nothing
  // Google's model card: 9.24B (the embedding counted once).
  CHECK(billions(model_parameters(m).total()) == Approx(9.24).epsilon(0.01));
  CHECK(m.attention_window(0) == 4096);
  CHECK(m.attention_window(1) == 0);
  CHECK(m.attention_window(41) == 0);
  // At 8K tokens, the 21 sliding layers keep half of it.
  const double full = kv_cache_bytes_per_token(m, 2) * 8192;
  CHECK(kv_cache_bytes_per_sequence(m, 8192, 2) == Approx(full * (21 * 4096.0 + 21 * 8192.0) / (42 * 8192.0)));
}

TEST_CASE("Gemma 3 27B: its language model from text_config, five sliding layers to one full", "[huggingface]") {
  const Model m = model_from_huggingface_config(gemma3_27b(), "config.json");
  CHECK(m.vocab == 262208);  // the default, absent from the file
  CHECK(m.attention.head_dim == 128);
  CHECK(m.tied_embeddings);
  // Google's 27B counts the 0.4B SigLIP vision encoder we leave out: 27.0B of language model
  // (27.4B in the safetensors with the encoder).
  CHECK(billions(model_parameters(m).total()) == Approx(27.0).epsilon(0.01));
  int full = 0;
  for (int l = 0; l < m.layers; ++l) full += m.attention_window(l) == 0 ? 1 : 0;
  CHECK(full == 10);  // layers 5, 11, ..., 59
  CHECK(m.attention_window(5) == 0);
  CHECK(m.attention_window(0) == 1024);
  CHECK(m.attention_window(61) == 1024);
  CHECK(m.max_context_tokens == 131072);  // the default, absent from the file: the report's 128K
  json missing = gemma3_27b();
  missing["text_config"].erase("hidden_size");
  CHECK_THROWS_WITH(
      model_from_huggingface_config(missing, "c.json"),
      Catch::StartsWith("c.json: /text_config/hidden_size: missing; a Gemma3ForConditionalGeneration config has it"));
  missing.erase("text_config");
  CHECK_THROWS_WITH(model_from_huggingface_config(missing, "c.json"),
                    Catch::StartsWith("c.json: /text_config: missing"));
}

TEST_CASE("Llama 4 Scout and Maverick: 17B active of 109B and 400B, dense layers between MoE ones", "[huggingface]") {
  const Model scout = model_from_huggingface_config(llama4(16, 1), "config.json");
  REQUIRE(scout.moe);
  CHECK(scout.moe->shared_experts == 1);
  CHECK(scout.moe_layer_count() == 48);
  CHECK(scout.moe->expert_ffn == 8192);
  CHECK(scout.dense_ffn == 16384);
  // Meta's model card: 109B total with the vision encoder (about 1B, left out), 17B active.
  CHECK(billions(model_parameters(scout).total()) == Approx(109).epsilon(0.02));
  CHECK(billions(model_parameters(scout).active()) == Approx(17).epsilon(0.02));
  const Model maverick = model_from_huggingface_config(llama4(128, 2), "config.json");
  CHECK(maverick.moe_layer_count() == 24);
  CHECK(!maverick.is_moe_layer(0));
  CHECK(maverick.is_moe_layer(1));
  CHECK(!maverick.is_moe_layer(46));
  CHECK(maverick.is_moe_layer(47));
  const auto costs = layer_costs(maverick);
  CHECK(costs[0].params.total() < costs[1].params.total() / 10);  // a dense layer against 128 experts
  CHECK(billions(model_parameters(maverick).total()) == Approx(400).epsilon(0.01));
  CHECK(billions(model_parameters(maverick).active()) == Approx(17).epsilon(0.02));
  // Chunked attention in three layers of four (RoPE), the fourth over the whole context (NoPE).
  CHECK(scout.attention_window(0) == 8192);
  CHECK(scout.attention_window(2) == 8192);
  CHECK(scout.attention_window(3) == 0);
  CHECK(scout.attention_window(47) == 0);
  // A moe_layers list other than the interleave is refused.
  json odd = llama4(128, 2);
  odd["text_config"]["moe_layers"] = {0, 1};
  CHECK_THROWS_WITH(model_from_huggingface_config(odd, "c.json"),
                    Catch::StartsWith("c.json: /text_config/moe_layers: is not allowed"));
}

TEST_CASE("gpt-oss 120b and 20b: 5.1B and 3.6B active of 117B and 21B, sliding layers of 128 tokens", "[huggingface]") {
  // OpenAI's model card (Table 1) counts the unembedding in the active parameters, not the
  // embedding (a lookup): 116.83B total, 5.13B active; 20.91B and 3.61B.
  struct Published {
    int layers, experts;
    double total_B, active_B;
  };
  for (const auto& p : {Published{36, 128, 116.83, 5.13}, Published{24, 32, 20.91, 3.61}}) {
    INFO(p.layers << " layers");
    const Model m = model_from_huggingface_config(gpt_oss(p.layers, p.experts), "config.json");
    REQUIRE(m.moe);
    CHECK(m.moe->active_routed_experts == 4);
    CHECK(m.moe->expert_ffn == 2880);
    CHECK(m.attention.head_dim == 64);
    CHECK(m.attention.qkv_bias);
    const auto params = model_parameters(m);
    CHECK(billions(params.total()) == Approx(p.total_B).epsilon(0.01));
    CHECK(billions(params.active() - params.embedding) == Approx(p.active_B).epsilon(0.01));
    CHECK(m.attention_window(0) == 128);
    CHECK(m.attention_window(1) == 0);
  }
  json c = gpt_oss(36, 128);
  c["layer_types"][3] = "local_attention";
  CHECK_THROWS_WITH(
      model_from_huggingface_config(c, "c.json"),
      Catch::StartsWith("c.json: /layer_types/3: 'local_attention' is not allowed; allowed: full_attention"));
  c["layer_types"].erase(3);
  CHECK_THROWS_WITH(model_from_huggingface_config(c, "c.json"),
                    Catch::StartsWith("c.json: /layer_types: has 35 entries; expected one per layer (36)"));
}

TEST_CASE("sliding-window layers cost less attention in training than full ones", "[huggingface]") {
  const Model windowed = model_from_huggingface_config(mistral_7b(), "c.json");
  json full_config = mistral_7b();
  full_config["sliding_window"] = nullptr;
  const Model full = model_from_huggingface_config(full_config, "c.json");
  CHECK(training_flops_per_token(windowed, 4096, AttentionMask::kCausal).total() ==
        Approx(training_flops_per_token(full, 4096, AttentionMask::kCausal).total()));
  CHECK(training_flops_per_token(windowed, 32768, AttentionMask::kCausal).attention <
        0.3 * training_flops_per_token(full, 32768, AttentionMask::kCausal).attention);
}

TEST_CASE("a model from a config is named by the config, not by its folder", "[huggingface]") {
  json c = mistral_7b();
  const Model unnamed = model_from_huggingface_config(c, "models/hf/config.json");
  CHECK(unnamed.name == "mistral-7.24b");
  CHECK(unnamed.display_name == "mistral 7.24B");
  c["_name_or_path"] = "mistralai/Mistral-7B-v0.1";
  const Model named = model_from_huggingface_config(c, "models/hf/config.json");
  CHECK(named.name == "Mistral-7B-v0.1");
  CHECK(named.display_name == "Mistral-7B-v0.1");
  const Model moe = model_from_huggingface_config(gpt_oss(24, 32), "hf/config.json");
  CHECK(moe.name == "gpt_oss-20.9b-a4.19b");  // total and active, embedding included
}

TEST_CASE("a scenario may name the model it reads from a config", "[huggingface][scenario]") {
  const json scenario = {
      {"model",
       {{"huggingface_config", "tests/data/huggingface/mixtral-8x7b/config.json"}, {"name", "Mixtral in hf/"}}}};
  core::JsonReader root(scenario, "");
  const Model& named = studies::read_model(root);
  CHECK(named.display_name == "Mixtral in hf/");
  CHECK(named.moe->routed_experts == 8);
  const json unnamed = {{"model", {{"huggingface_config", "tests/data/huggingface/mixtral-8x7b/config.json"}}}};
  core::JsonReader plain(unnamed, "");
  CHECK(studies::read_model(plain).name == "mixtral-46.7b-a12.9b");  // not the folder's name
  const json empty = {
      {"model", {{"huggingface_config", "tests/data/huggingface/mixtral-8x7b/config.json"}, {"name", ""}}}};
  core::JsonReader bad(empty, "");
  CHECK_THROWS_WITH(studies::read_model(bad), Catch::StartsWith("/model/name: is empty"));
}

TEST_CASE("an unsupported architecture is refused naming the supported ones", "[huggingface]") {
  json c = mistral_7b();
  c["architectures"] = {"MistralForCausalLMX"};
  try {
    model_from_huggingface_config(c, "c.json");
    FAIL("accepted");
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("c.json: /architectures/0: 'MistralForCausalLMX' is not supported; allowed: "));
    for (const auto& family : huggingface_architectures()) CHECK_THAT(what, Catch::Contains(family));
    CHECK_THAT(what, Catch::Contains("did you mean 'MistralForCausalLM'"));
  }
}

TEST_CASE("every shipped model states its context, so a prompt beyond it is refused", "[huggingface]") {
  for (const std::string& name : model_names()) {
    INFO(name);
    CHECK(model_by_name(name).max_context_tokens > 0);
  }
}
