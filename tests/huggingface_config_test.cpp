#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "workload/model/huggingface_config.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/model.hpp"

using namespace workload;

namespace {

const std::string kConfigs = std::string(CODESIM_SOURCE_DIR) + "/tests/data/huggingface/";

}  // namespace

TEST_CASE("the models in data/ have their published sizes", "[huggingface]") {
  // Total and active parameters as their authors publish them (MTP modules apart).
  struct Published {
    const char* name;
    double total_B, active_B;
  };
  for (const auto& p :
       {Published{"deepseek-v3", 671, 37}, Published{"deepseek-v2", 236, 21}, Published{"qwen2.5-72b", 72.7, 72.7},
        Published{"llama-3.1-405b", 405, 405}, Published{"mixtral-8x7b", 46.7, 12.9},
        Published{"qwen3-30b-a3b", 30.5, 3.3}, Published{"gpt-3-175b", 175, 175}}) {
    INFO(p.name);
    const auto params = model_parameters(model_by_name(p.name));
    CHECK(params.total() / 1e9 == Approx(p.total_B).epsilon(0.01));
    CHECK(params.active() / 1e9 == Approx(p.active_B).epsilon(0.03));
  }
  CHECK(model_by_name("deepseek-v3").mtp_modules == 1);
  CHECK(model_by_name("deepseek-v3").display_name == "DeepSeek-V3");
}

TEST_CASE("a user's config.json gives the model the shipped data gives", "[huggingface]") {
  for (const char* name : {"deepseek-v3", "llama-3.1-405b", "mixtral-8x7b", "qwen3-30b-a3b"}) {
    INFO(name);
    const Model hf = read_huggingface_config(kConfigs + name + "/config.json");
    const Model& m = model_by_name(name);
    CHECK(hf.layers == m.layers);
    CHECK(hf.dense_layers == m.dense_layers);
    CHECK(hf.hidden == m.hidden);
    CHECK(hf.attention.qk_head_dim() == m.attention.qk_head_dim());
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
  nlohmann::json llama = {{"architectures", {"LlamaForCausalLM"}},
                          {"hidden_size", 4096},
                          {"vocab_size", 32000},
                          {"intermediate_size", 11008},
                          {"num_attention_heads", 32}};
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"),
                    Catch::StartsWith("c.json: /num_hidden_layers: missing; a LlamaForCausalLM config has it"));
  llama["num_hidden_layers"] = "32";
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"),
                    Catch::StartsWith("c.json: /num_hidden_layers: \"32\""));
  llama["num_hidden_layers"] = 32;
  llama["num_key_value_heads"] = 5;
  CHECK_THROWS_WITH(model_from_huggingface_config(llama, "c.json"),
                    Catch::StartsWith("c.json: /num_key_value_heads: 5 is not allowed"));
  llama["num_key_value_heads"] = 32;
  CHECK(model_from_huggingface_config(llama, "c.json").attention.head_dim == 128);
}
