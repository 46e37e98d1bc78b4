#include <catch2/catch.hpp>
#include <string>

#include "workload/model/layer_memory_kernels.hpp"

using namespace workload;

namespace {

const MemoryKernel* find(const std::vector<MemoryKernel>& list, const std::string& name) {
  for (const auto& k : list)
    if (name == k.name) return &k;
  return nullptr;
}

int fp8_kernels(const std::vector<MemoryKernel>& list) {
  int n = 0;
  for (const auto& k : list) n += std::string(k.name).find("FP8") != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("memory-bound kernels: bytes counted from the shapes", "[memory-kernels]") {
  const Model& v3 = model_by_name("deepseek-v3");
  const double h = v3.hidden;
  const auto k = layer_memory_kernels(v3, true, true);
  // RMSNorm reads and writes BF16 h; an FP8 cast reads BF16 and writes a byte and 4/128 of a scale.
  REQUIRE(find(k.attn_forward, "RMSNorm (attention input)"));
  CHECK(find(k.attn_forward, "RMSNorm (attention input)")->hidden_bytes == 4 * h);
  REQUIRE(find(k.attn_forward, "FP8 cast of the attention input"));
  CHECK(find(k.attn_forward, "FP8 cast of the attention input")->hidden_bytes == Approx(3.03125 * h));
  // MLA's rotary parts: 128 query heads and the one shared key part of 64, read and written.
  CHECK(find(k.attn_forward, "RoPE on queries and keys")->heads_bytes == 4 * 129 * 64);
  // Expert kernels count per routed row: the permute moves each FP8 row and its scales twice.
  const MemoryKernel* permute = find(k.mlp_forward, "permute the received tokens into expert order");
  REQUIRE(permute);
  CHECK(permute->hidden_bytes == 0);
  CHECK(permute->routed_row_bytes == Approx(2 * 1.03125 * h));
  CHECK(permute->bytes(4096, 32768, 1, false) == Approx(32768 * 2 * 1.03125 * h));
}

TEST_CASE("memory-bound kernels: the router before the dispatch, FP8 casts only in an FP8 recipe", "[memory-kernels]") {
  const Model& v3 = model_by_name("deepseek-v3");
  const auto moe = layer_memory_kernels(v3, true, true);
  const auto dense = layer_memory_kernels(v3, false, true);
  const auto bf16 = layer_memory_kernels(v3, true, false);
  // The router and the MoE input's norm run in attention's op, a dense layer's FFN norm in mlp(F).
  CHECK(find(moe.attn_forward, "router: scores, group-limited top-k, weights"));
  CHECK(find(moe.attn_forward, "RMSNorm (MoE input)"));
  CHECK_FALSE(find(dense.attn_forward, "router: scores, group-limited top-k, weights"));
  CHECK(find(dense.mlp_forward, "RMSNorm (FFN input)"));
  CHECK(find(moe.mlp_recompute, "RMSNorm recomputed (MoE input)"));
  // Recomputed up-projections: MLA rebuilds the attention's inputs as the forward built them.
  for (const auto& [recomputed, forward] :
       {std::pair{"RoPE on queries and keys recomputed", "RoPE on queries and keys"},
        {"MLA keys assembled per head, recomputed", "MLA keys assembled per head"},
        {"FP8 cast of the MLA latents recomputed", "FP8 cast of the MLA latents"}}) {
    REQUIRE(find(moe.attn_recompute, recomputed));
    CHECK(find(moe.attn_recompute, recomputed)->bytes(4096, 0, 1, false) ==
          find(moe.attn_forward, forward)->bytes(4096, 0, 1, false));
  }
  // GQA keeps its queries and keys: nothing of its attention is recomputed but the norm.
  CHECK(layer_memory_kernels(model_by_name("llama-3.1-405b"), false, false).attn_recompute.size() == 1);
  CHECK(dense.mlp_recompute.size() == 1);
  // FP8 casts before every GEMM, the backward's per-token and transposed casts; none in BF16.
  CHECK(fp8_kernels(moe.attn_forward) == 4);
  CHECK(fp8_kernels(moe.attn_backward) == 2);
  CHECK(fp8_kernels(moe.mlp_backward) == 2);
  // The recipe's low-precision caches (report §3.3.3): written in the forward, read in the backward.
  CHECK(find(moe.attn_forward, "attention output cached in E5M6"));
  CHECK(find(moe.attn_backward, "cached attention output back to BF16"));
  CHECK(find(moe.mlp_forward, "SwiGLU inputs cached in FP8"));
  CHECK(find(moe.mlp_backward, "cached SwiGLU inputs back to BF16"));
  CHECK_FALSE(find(bf16.attn_forward, "attention output cached in E5M6"));
  CHECK(moe.mlp_weight.size() == 1);
  for (const auto* list :
       {&bf16.attn_forward, &bf16.attn_backward, &bf16.mlp_forward, &bf16.mlp_backward, &bf16.mlp_weight})
    CHECK(fp8_kernels(*list) == 0);
  CHECK(bf16.mlp_weight.empty());
}

TEST_CASE("memory-bound kernels: combine(B) sends the output gradients cast to FP8, so the experts receive FP8 rows",
          "[memory-kernels]") {
  const Model& v3 = model_by_name("deepseek-v3");
  const double h = v3.hidden, fp8 = 1 + 4.0 / 128;
  const auto moe = layer_memory_kernels(v3, true, true);
  // One per-token cast on the communication stream (report §3.3.3; DeepSeek's profile runs it
  // under combine(B)), none per received row.
  REQUIRE(moe.combine_backward.size() == 1);
  CHECK(moe.combine_backward[0].bytes(4096, 32768, 1, false) == Approx(4096 * (2 + fp8) * h));
  CHECK(find(moe.mlp_backward, "permute the output gradients into expert order")->routed_row_bytes ==
        Approx(2 * fp8 * h));
  CHECK(find(moe.mlp_backward, "FP8 casts of the output gradients")->routed_row_bytes ==
        Approx((2 + fp8) * 2 * v3.moe->expert_ffn));
  CHECK(moe.mlp_weight[0].routed_row_bytes == Approx(2 * 2 * fp8 * h));  // both operands requantised per channel
  // BF16 recipes send BF16 gradients: nothing to cast; dense layers send nothing; no backward in serving.
  CHECK(layer_memory_kernels(v3, true, false).combine_backward.empty());
  CHECK(find(layer_memory_kernels(v3, true, false).mlp_backward, "permute the output gradients into expert order")
            ->routed_row_bytes == Approx(4 * h));
  CHECK(layer_memory_kernels(v3, false, true).combine_backward.empty());
  CHECK(layer_memory_kernels(v3, true, true, LayerPass::kPrefill).combine_backward.empty());
}

TEST_CASE("memory-bound kernels: sequence parallelism cuts the hidden-sized work over TP", "[memory-kernels]") {
  const Model& llama = model_by_name("llama-3.1-405b");
  const auto k = layer_memory_kernels(llama, false, false);
  CHECK_FALSE(find(k.attn_forward, "MLA keys assembled per head"));
  for (const auto& kernel : k.attn_forward) {
    const double one = kernel.bytes(1, 0, 1, false);
    CHECK(kernel.bytes(1, 0, 8, true) == Approx(one / 8));
    CHECK(kernel.bytes(1, 0, 8, false) == Approx(kernel.hidden_bytes + kernel.heads_bytes / 8));
  }
  // GQA's RoPE on every query and key head, the full head dim.
  const Attention& a = llama.attention;
  CHECK(find(k.attn_forward, "RoPE on queries and keys")->heads_bytes == 4.0 * (a.heads + a.kv_heads) * a.head_dim);
}

TEST_CASE("memory-bound kernels: prefill and decode run the forward alone, decode without permutes",
          "[memory-kernels]") {
  const Model& v3 = model_by_name("deepseek-v3");
  const auto prefill = layer_memory_kernels(v3, true, true, LayerPass::kPrefill);
  const auto decode = layer_memory_kernels(v3, true, true, LayerPass::kDecode);
  for (const auto* k : {&prefill, &decode}) {
    CHECK(k->attn_backward.empty());
    CHECK(k->mlp_backward.empty());
    CHECK(k->mlp_weight.empty());
    CHECK(k->attn_recompute.empty());
    // No backward, so no activation caches for it.
    CHECK_FALSE(find(k->attn_forward, "attention output cached in E5M6"));
    CHECK_FALSE(find(k->mlp_forward, "SwiGLU inputs cached in FP8"));
  }
  // Prefill's MLA attends with keys per head; decode's is absorbed and reads the latent.
  CHECK(find(prefill.attn_forward, "MLA keys assembled per head"));
  CHECK_FALSE(find(decode.attn_forward, "MLA keys assembled per head"));
  // Decode's low-latency all-to-all casts inside its kernel and uses the masked expert layout.
  CHECK(find(prefill.attn_forward, "FP8 cast of the tokens to dispatch"));
  CHECK(find(prefill.mlp_forward, "permute the received tokens into expert order"));
  CHECK_FALSE(find(decode.attn_forward, "FP8 cast of the tokens to dispatch"));
  CHECK_FALSE(find(decode.mlp_forward, "permute the received tokens into expert order"));
  CHECK_FALSE(find(decode.mlp_forward, "unpermute the expert outputs into send order"));
  CHECK(find(decode.mlp_forward, "SwiGLU with routing weights, fused with its FP8 cast"));
}
