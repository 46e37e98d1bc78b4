#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "workload/huggingface_config.hpp"
#include "workload/layer_cost.hpp"
#include "workload/model.hpp"

using namespace workload;

namespace {

const std::string kConfigs = std::string(CODESIM_SOURCE_DIR) + "/tests/data/huggingface/";

}  // namespace

TEST_CASE("the shipped models' config.json give the catalogue's models", "[huggingface]") {
  for (const char* name : {"deepseek-v3", "deepseek-v2", "qwen2.5-72b", "llama-3.1-405b"}) {
    INFO(name);
    const Model hf = read_huggingface_config(kConfigs + name + "/config.json");
    const Model& m = model_by_name(name);
    CHECK(hf.name == m.name);
    CHECK(hf.layers == m.layers);
    CHECK(hf.dense_layers == m.dense_layers);
    CHECK(hf.hidden == m.hidden);
    CHECK(hf.dense_ffn == m.dense_ffn);
    CHECK(hf.vocab == m.vocab);
    CHECK(hf.mtp_modules == m.mtp_modules);
    CHECK(hf.attention.kind == m.attention.kind);
    CHECK(hf.attention.heads == m.attention.heads);
    CHECK(hf.attention.qk_head_dim() == m.attention.qk_head_dim());
    CHECK(hf.attention.value_head_dim() == m.attention.value_head_dim());
    CHECK(hf.attention.kv_heads == m.attention.kv_heads);
    CHECK(hf.attention.qkv_bias == m.attention.qkv_bias);
    CHECK(hf.attention.q_lora_rank == m.attention.q_lora_rank);
    CHECK(hf.attention.kv_lora_rank == m.attention.kv_lora_rank);
    REQUIRE(hf.moe.has_value() == m.moe.has_value());
    if (m.moe) {
      CHECK(hf.moe->routed_experts == m.moe->routed_experts);
      CHECK(hf.moe->shared_experts == m.moe->shared_experts);
      CHECK(hf.moe->active_routed_experts == m.moe->active_routed_experts);
      CHECK(hf.moe->expert_ffn == m.moe->expert_ffn);
      CHECK(hf.moe->groups == m.moe->groups);
      CHECK(hf.moe->groups_per_token == m.moe->groups_per_token);
    }
    // The same model: the same parameters, to the weight.
    CHECK(model_parameters(hf).total() == model_parameters(m).total());
  }
}

TEST_CASE("Mixtral and Qwen3-MoE configs read as MoE models with GQA", "[huggingface]") {
  const Model mixtral = read_huggingface_config(kConfigs + "mixtral-8x7b/config.json");
  REQUIRE(mixtral.moe);
  CHECK(mixtral.moe->routed_experts == 8);
  CHECK(mixtral.moe->active_routed_experts == 2);
  CHECK(mixtral.moe->expert_ffn == 14336);
  CHECK(mixtral.dense_layers == 0);
  // Mixtral-8x7B has 46.7B parameters (Mistral AI), 12.9B active per token.
  CHECK(model_parameters(mixtral).total() / 1e9 == Approx(46.7).epsilon(0.01));
  CHECK(model_parameters(mixtral).active() / 1e9 == Approx(12.9).epsilon(0.01));
  const Model qwen3 = read_huggingface_config(kConfigs + "qwen3-30b-a3b/config.json");
  REQUIRE(qwen3.moe);
  CHECK(qwen3.attention.head_dim == 128);  // stated, not hidden / heads (64)
  // Qwen3-30B-A3B: 30.5B parameters, 3.3B active (Qwen's model card).
  CHECK(model_parameters(qwen3).total() / 1e9 == Approx(30.5).epsilon(0.01));
  CHECK(model_parameters(qwen3).active() / 1e9 == Approx(3.3).epsilon(0.02));
}

TEST_CASE("configs outside the supported families or missing a field are refused", "[huggingface]") {
  nlohmann::json gpt2 = {{"architectures", {"GPT2LMHeadModel"}}, {"n_layer", 12}};
  CHECK_THROWS_WITH(model_from_huggingface_config(gpt2, "c.json"),
                    Catch::StartsWith("c.json: /architectures/0: 'GPT2LMHeadModel' is not supported"));
  nlohmann::json llama = {{"architectures", {"LlamaForCausalLM"}}, {"hidden_size", 4096}, {"vocab_size", 32000},
                          {"intermediate_size", 11008}, {"num_attention_heads", 32}};
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"),
                    Catch::StartsWith("c.json: /num_hidden_layers: missing; a LlamaForCausalLM config has it"));
  llama["num_hidden_layers"] = "32";
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"), Catch::StartsWith("c.json: /num_hidden_layers: \"32\""));
  llama["num_hidden_layers"] = 32;
  llama["num_key_value_heads"] = 5;
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"), Catch::StartsWith("c.json: /num_key_value_heads: 5 is not allowed"));
  llama["num_key_value_heads"] = 32;
  CHECK(model_from_huggingface_config(llama, "c.json").attention.head_dim == 128);
}
