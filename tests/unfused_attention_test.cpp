#include <catch2/catch.hpp>

#include "hw/gemm_library.hpp"
#include "hw/gpu.hpp"
#include "hw/memory_kernel.hpp"
#include "workload/model/model.hpp"
#include "workload/training/training_memory.hpp"
#include "workload/training/unfused_attention.hpp"

using namespace workload;

namespace {

Roofline a100() {
  const hw::Gpu& gpu = hw::gpu_by_name("A100");
  return Roofline(gpu, KernelEfficiency{}, hw::GemmPrecision::kBf16,
                  hw::default_gemm_library(hw::GemmPrecision::kBf16, gpu.name));
}

double seconds_of(const std::vector<KernelTime>& kernels, const std::string& name) {
  for (const KernelTime& k : kernels)
    if (k.name == name) return k.seconds;
  FAIL("no kernel " << name);
  return 0;
}

}  // namespace

// FlashAttention-2's benchmark (Dao 2023, Fig. 4; notes/kernels-beyond-hopper.md §1): on an A100,
// 16k tokens a batch, hidden 2048, head dim 128, PyTorch's standard attention (the same batched
// GEMMs around a softmax over the whole score matrix) ran forward and backward at 53-86 TFLOPS
// from 512 to 8k tokens. Ours, from the A100's GEMM and memory-bound fits, none fitted to it.
TEST_CASE("unfused attention on an A100 runs at the rates of PyTorch's standard attention, head dim 128",
          "[training][kernels]") {
  const Roofline r = a100();
  for (const double s : {512.0, 1024.0, 2048.0, 4096.0, 8192.0}) {
    const double heads = 2048 / 128, sequences = 16384 / s;
    const UnfusedAttention a = unfused_attention(r, {sequences, heads, s, 128, 128, false}, 108);
    const double flops = 4 * s * s * 128 * heads * sequences * 3.5;  // forward, and backward at 2.5 x
    const double tflops = flops / (a.forward_s() + a.backward_s()) / 1e12;
    INFO(s << " tokens: " << tflops << " TFLOPS");
    CHECK(tflops >= 53);
    CHECK(tflops <= 86);
  }
}

TEST_CASE("unfused attention: its kernels in Megatron-LM's order, dropout's only where the run has it",
          "[training][kernels]") {
  const Roofline r = a100();
  const UnfusedAttention plain = unfused_attention(r, {1, 12, 2048, 128, 128, false}, 108);
  const UnfusedAttention dropout = unfused_attention(r, {1, 12, 2048, 128, 128, true}, 108);
  REQUIRE(plain.forward.size() == 3);
  REQUIRE(plain.backward.size() == 5);
  REQUIRE(dropout.forward.size() == 4);
  REQUIRE(dropout.backward.size() == 6);
  CHECK(plain.forward.front().name == "Q·Kᵀ (batched GEMM)");
  CHECK(plain.forward.back().name == "P·V (batched GEMM)");
  // Dropout adds its own kernels and changes none of the others.
  CHECK(dropout.forward_s() - plain.forward_s() ==
        Approx(seconds_of(dropout.forward, "dropout of the probabilities")).epsilon(1e-12));
  CHECK(dropout.backward_s() - plain.backward_s() ==
        Approx(seconds_of(dropout.backward, "dropout backward")).epsilon(1e-12));
  // The softmax streams every score: twice the tokens of a sequence, four times its bytes.
  const UnfusedAttention longer = unfused_attention(r, {1, 12, 8192, 128, 128, false}, 108);
  const UnfusedAttention shorter = unfused_attention(r, {1, 12, 4096, 128, 128, false}, 108);
  const double floor_s = hw::memory_kernels_for(r.gpu()).rate(hw::MemoryKernelKind::kRowReduction).floor_s;
  CHECK(seconds_of(longer.forward, "scale, mask and softmax (fused)") - floor_s ==
        Approx(4 * (seconds_of(shorter.forward, "scale, mask and softmax (fused)") - floor_s)));
}

TEST_CASE("unfused attention keeps its probabilities for the backward: 2 a s bytes a token, 5 a s with dropout",
          "[training]") {
  const Model& m = model_by_name("llama-3.1-8b");
  TrainingParallelism par;
  par.tp = 4;
  par.cp = 1;
  par.recompute = Recompute::kNone;
  const double tokens = 8192, s = 4096, heads = double(m.attention.heads) / par.tp;
  const double flash = layer_activation_bytes(m, false, par, tokens, s, false).total();
  par.unfused_attention = true;
  const double unfused = layer_activation_bytes(m, false, par, tokens, s, false).total();
  par.attention_dropout = true;
  const double with_dropout = layer_activation_bytes(m, false, par, tokens, s, false).total();
  // Flash attention's log-sum-exp (4 bytes a head) gives way to the probabilities.
  CHECK(unfused - flash == Approx((2 * s - 4) * heads * tokens));
  CHECK(with_dropout - flash == Approx((5 * s - 4) * heads * tokens));
  // Recomputing the whole layer keeps none of it.
  par.recompute = Recompute::kFull;
  par.unfused_attention = par.attention_dropout = false;
  const double full_flash = layer_activation_bytes(m, false, par, tokens, s, false).total();
  par.unfused_attention = par.attention_dropout = true;
  CHECK(layer_activation_bytes(m, false, par, tokens, s, false).total() == full_flash);
}
