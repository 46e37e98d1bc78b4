#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "workload/model/kv_cache.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/model.hpp"
#include "workload/model/training_flops.hpp"

using namespace workload;

TEST_CASE("KV cache per token, BF16 (ISCA'25 Table 1), exact", "[model]") {
  CHECK(kv_cache_bytes_per_token(model_by_name("deepseek-v3"), 2) == 70272);   // (512 + 64) x 2 B x 61
  CHECK(kv_cache_bytes_per_token(model_by_name("qwen2.5-72b"), 2) == 327680);  // 2 x 8 x 128 x 2 B x 80
  CHECK(kv_cache_bytes_per_token(model_by_name("llama-3.1-405b"), 2) == 516096);
}

TEST_CASE("parameter counts match the published totals", "[model]") {
  const auto v3 = model_parameters(model_by_name("deepseek-v3"));
  CHECK(v3.total() / 1e9 == Approx(671).epsilon(0.002));
  CHECK(v3.active() / 1e9 == Approx(37).epsilon(0.02));
  // The 685B of the released checkpoint = 671B main model + 14B MTP module.
  CHECK((v3.total() + v3.mtp_total) / 1e9 == Approx(685).epsilon(0.01));
  CHECK(model_parameters(model_by_name("deepseek-v2")).total() / 1e9 == Approx(236).epsilon(0.005));
  CHECK(model_parameters(model_by_name("llama-3.1-405b")).total() / 1e9 == Approx(405).epsilon(0.005));
  CHECK(model_parameters(model_by_name("qwen2.5-72b")).total() / 1e9 == Approx(72.7).epsilon(0.005));
}

TEST_CASE("per-layer costs by hand for one DeepSeek-V3 MoE layer", "[model]") {
  const auto& m = model_by_name("deepseek-v3");
  const auto layers = layer_costs(m);
  REQUIRE(layers.size() == 61);
  CHECK_FALSE(layers[2].moe);
  CHECK(layers[3].moe);
  // MLA: q_a 7168x1536, q_b 1536x128x192, kv_a 7168x576, kv_b 512x128x256, o 128x128x7168.
  const double mla = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
  CHECK(layers[3].params.attention == mla);
  const double expert = 3.0 * 7168 * 2048;
  CHECK(layers[3].params.ffn_active == 9 * expert + 7168.0 * 256);
  CHECK(layers[3].params.ffn_total == 257 * expert + 7168.0 * 256);
  CHECK(layers[3].matmul_flops_per_token == 2 * (mla + 9 * expert + 7168.0 * 256));
  CHECK(layers[0].params.ffn_total == 3.0 * 7168 * 18432);
  CHECK(layers[0].attention_flops_per_token(100) == 2.0 * 128 * (192 + 128) * 100);
}

TEST_CASE("training FLOPs per token (ISCA'25 Table 2)", "[model]") {
  const auto v3 = training_flops_per_token(model_by_name("deepseek-v3"), 4096, AttentionMask::kCausal);
  const auto v2 = training_flops_per_token(model_by_name("deepseek-v2"), 4096, AttentionMask::kCausal);
  CHECK(v3.total() / 1e9 == Approx(250).epsilon(0.01));
  CHECK(v2.total() / 1e9 == Approx(155).epsilon(0.01));
  // Causal attention is the (s+1)/2 share of the full one.
  const auto full = training_flops_per_token(model_by_name("deepseek-v3"), 4096, AttentionMask::kFull);
  CHECK(v3.attention / full.attention == Approx(4097.0 / 2 / 4096));
  CHECK(full.layers_matmul == v3.layers_matmul);
  // Dense rows: reported with the gap, see the train-flops notes.
  const auto llama = training_flops_per_token(model_by_name("llama-3.1-405b"), 4096, AttentionMask::kCausal);
  CHECK(llama.total() / 1e9 == Approx(2448).epsilon(0.02));
}

TEST_CASE("unknown model names are refused with a suggestion", "[model]") {
  CHECK_THROWS_WITH(
      model_by_name("deepseek-v4", "/model"),
      "/model: model 'deepseek-v4' is unknown; allowed: deepseek-v2, deepseek-v3, gemma-2-9b, gemma-3-27b, gpt-3-175b, "
      "gpt-oss-120b, gpt-oss-20b, llama-3.1-405b, llama-3.1-70b, llama-3.1-8b, llama-4-maverick, llama-4-scout, mistral-7b, "
      "mixtral-8x7b, qwen2.5-72b, qwen3-235b-a22b, qwen3-30b-a3b; did you mean 'deepseek-v2'?");
}
