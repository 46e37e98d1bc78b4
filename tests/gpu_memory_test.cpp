#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace serving;
using namespace serving_fixtures;

TEST_CASE("memory: DeepSeek-V3 on a decode GPU of EP144, counted from the shapes", "[serving]") {
  MemoryInput in;
  in.max_step_tokens = 256;
  in.runtime_reserve_bytes = 8e9;
  const auto p = plan_memory(v3(), h800(), decode_unit(), in);
  // MLA's latent: 576 BF16 elements per token and layer, 61 layers.
  CHECK(p.kv_bytes_per_token == Approx(576.0 * 2 * 61));
  CHECK(p.weight_bytes > 20e9);
  CHECK(p.weight_bytes < 30e9);
  CHECK(p.kv_bytes == Approx(p.hbm_bytes - p.weight_bytes - p.activation_bytes - p.reserve_bytes));
  // One GPU cannot hold the whole model: no room for KV, and the plan says so.
  workload::ServingDeployment one = decode_unit();
  one.gpus = one.routed_gpus = 8;
  one.redundant_experts = 0;
  CHECK_FALSE(plan_memory(v3(), h800(), one, in).fits());
}

TEST_CASE("memory: linear weights take their precision's bytes (NVFP4: half a byte and an FP8 scale per 16)",
          "[serving]") {
  MemoryInput in;
  in.max_step_tokens = 256;
  const auto with = [&](hw::GemmPrecision weights) {
    in.weights = weights;
    return plan_memory(v3(), h800(), decode_unit(), in).weight_bytes;
  };
  const double fp8 = with(hw::GemmPrecision::kFp8), bf16 = with(hw::GemmPrecision::kBf16),
               fp4 = with(hw::GemmPrecision::kFp4);
  // The parts kept in BF16 (norms, gate, embedding, LM head) are the same in each: the linear
  // weights are bf16 - fp8 bytes at FP8, and 0.5625 of those at FP4.
  const double linear_fp8 = bf16 - fp8;
  CHECK(fp8 - fp4 == Approx(linear_fp8 * (1 - 0.5625)));
  CHECK(fp4 < 0.7 * fp8);
}

TEST_CASE("memory: an engine's KV rule (a share of HBM, of what the weights leave, or HBM less a reserve)",
          "[serving]") {
  MemoryInput in;
  in.max_step_tokens = 256;
  in.runtime_reserve_bytes = 0.1 * h800().hbm_bytes;  // vLLM: 0.9 of all HBM
  const auto vllm = plan_memory(v3(), h800(), decode_unit(), in);
  MemoryInput trt = in;  // TensorRT-LLM: 0.9 of what the weights and activations leave
  trt.runtime_reserve_bytes = 0;
  trt.kv_share_of_free = 0.9;
  const auto t = plan_memory(v3(), h800(), decode_unit(), trt);
  const double free = t.hbm_bytes - t.weight_bytes - t.activation_bytes;
  CHECK(t.kv_bytes == Approx(0.9 * free));
  CHECK(t.reserve_bytes == Approx(0.1 * free));
  CHECK(t.kv_bytes > vllm.kv_bytes);  // a tenth of the free memory, not of all HBM, kept
  MemoryInput sgl = in;               // SGLang: a reserve that holds the activations
  sgl.runtime_reserve_bytes = 14e9;
  sgl.reserve_holds_activations = true;
  const auto s = plan_memory(v3(), h800(), decode_unit(), sgl);
  CHECK(s.kv_bytes == Approx(s.hbm_bytes - s.weight_bytes - 14e9));
}
