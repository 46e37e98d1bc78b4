#include <catch2/catch.hpp>

#include "hw/attention_kernel.hpp"
#include "hw/flash_attention.hpp"
#include "hw/gemm_kernel.hpp"
#include "hw/gemm_library.hpp"
#include "hw/gpu.hpp"

using namespace hw;

TEST_CASE("GEMM tiles are chosen as DeepGEMM chooses them", "[kernels]") {
  // 4096 x 7168: 32 x 28 tiles of 128 x 256 make 896 tiles, 7 waves on 132 SMs; nothing makes fewer.
  const auto big = gemm_tiling({4096, 7168, 16384}, 132);
  CHECK(big.block_m == 128);
  CHECK(big.block_n == 256);
  CHECK(big.waves == 7);
  CHECK(big.multicast == 2);
  // 64 rows: one row of tiles, as narrow as fills the SMs in one wave.
  const auto small = gemm_tiling({64, 2112, 7168}, 132);
  CHECK(small.block_m == 64);
  CHECK(small.waves == 1);
  CHECK(small.tiles <= 132);
  // The contiguous layout aligns each group to 128 rows.
  CHECK(gemm_tiling({4096, 4096, 7168, 8, GemmKind::kGroupedContiguous}, 132).block_m == 128);
}

TEST_CASE("GEMM time respects the GPU's limits", "[kernels]") {
  const auto& h800 = gpu_by_name("H800");
  const auto& c = default_gemm_library().constants;
  for (const GemmShape& s : {GemmShape{64, 2112, 7168}, GemmShape{4096, 7168, 16384}, GemmShape{128, 32768, 512},
                             GemmShape{512, 4096, 7168, 8, GemmKind::kGroupedContiguous},
                             GemmShape{7168, 2112, 4096, 1, GemmKind::kWeightGradient}}) {
    const double t = gemm_seconds(h800, s, 132, c);
    // Never above the FP8 peak, never faster than reading the operands once.
    CHECK(s.flops() / t < h800.fp8_dense_flops_per_s);
    CHECK(t > (s.m * s.groups * s.k + s.groups * s.n * s.k) / h800.hbm_bandwidth_Bps);
    // Fewer SMs (communication holding 20) is never faster where the tensor cores bind. (A
    // one-wave GEMM may be: fewer, wider tiles re-read the shared rows from L2 less often.)
    if (gemm_tiling(s, 132).waves > 1) CHECK(gemm_seconds(h800, s, 112, c) >= t);
    // A longer K loop is never shorter.
    GemmShape longer = s;
    longer.k *= 2;
    CHECK(gemm_seconds(h800, longer, 132, c) > t);
  }
  // A 64-row GEMM is bound by its weight bytes: doubling the rows costs far less than double.
  const double m64 = gemm_seconds(h800, {64, 7168, 16384}, 132, c);
  CHECK(gemm_seconds(h800, {128, 7168, 16384}, 132, c) < 1.5 * m64);
  // A large one is bound by the tensor cores: double the rows, about double the time.
  const double m4k = gemm_seconds(h800, {4096, 7168, 16384}, 132, c);
  CHECK(gemm_seconds(h800, {8192, 7168, 16384}, 132, c) == Approx(2 * m4k).epsilon(0.1));
}

TEST_CASE("A BF16 GEMM takes twice an FP8 one where tensor cores bind and where weight bytes do", "[kernels]") {
  const auto& h800 = gpu_by_name("H800");
  const auto& c = default_gemm_library().constants;
  for (double m : {64.0, 4096.0}) {
    INFO("M = " << m);
    GemmShape fp8{m, 7168, 16384};
    GemmShape bf16 = fp8;
    bf16.precision = GemmPrecision::kBf16;
    const double ratio = gemm_seconds(h800, bf16, 132, c) / gemm_seconds(h800, fp8, 132, c);
    CHECK(ratio > 1.8);
    CHECK(ratio < 2.05);
  }
}

TEST_CASE("FlashMLA decode runs at its published rates on H800, bound by KV bytes or by compute", "[kernels]") {
  const auto& h800 = gpu_by_name("H800");
  // Memory-bound: 3000 GB/s of KV cache; compute-bound: 660 TFLOPS (notes/kernels.md).
  CHECK(flash_mla_decode_seconds(h800, 3e9, 1e9) == Approx(1e-3));
  CHECK(flash_mla_decode_seconds(h800, 1e6, 660e9) == Approx(1e-3));
  // The larger of the two bounds.
  CHECK(flash_mla_decode_seconds(h800, 3e9, 660e9 * 2) == Approx(2e-3));
  // On another GPU the same shares of its HBM and BF16 peak.
  const auto& h200 = gpu_by_name("H200");
  CHECK(flash_mla_decode_seconds(h200, 4.8e9 * 3000 / 3350, 0) == Approx(1e-3));
}

TEST_CASE("FlashAttention-3's model: a causal mask halves long sequences' work, fewer SMs stretch it", "[kernels]") {
  const auto& h100 = gpu_by_name("H100");
  AttentionShape full{1, 16, 16384, 16384, 128, 128, false};
  AttentionShape causal = full;
  causal.causal = true;
  const double f = flash_attention_forward_seconds(h100, full, 132);
  const double c = flash_attention_forward_seconds(h100, causal, 132);
  CHECK(c / f > 0.5);
  CHECK(c / f < 0.56);
  // Work spread evenly over the SMs: 112 of them take 132/112 as long.
  CHECK(flash_attention_forward_seconds(h100, full, 112) == Approx(f * 132 / 112).epsilon(0.01));
  // The backward does 2.5 times the work, at a lower rate.
  CHECK(flash_attention_backward_seconds(h100, full, 132) > 2.5 * f);
  // A chunk of queries after its context costs what its pairs cost: the last 4096 of 16,384
  // queries under the mask see 3.5 / 8 of the full square's pairs, as 4096 x 14,336 full ones.
  AttentionShape tail = causal;
  tail.queries = 4096;
  CHECK(tail.forward_flops() ==
        Approx(full.forward_flops() * (4096.0 * (16384 - 4096) + 4096.0 * 4097 / 2) / (16384.0 * 16384)));
  CHECK(flash_attention_forward_seconds(h100, tail, 132) < c);
}

TEST_CASE("FP4 GEMMs on Blackwell: twice FP8's rate where the tensor cores bind, half its bytes where HBM does",
          "[kernels]") {
  const auto& b200 = gpu_by_name("B200");
  const auto& c = default_gemm_library().constants;
  CHECK(dense_flops_per_s(b200, GemmPrecision::kFp4) == 9e15);  // HGX B200 datasheet: 72 PFLOPS dense over 8 GPUs
  CHECK(operand_bytes_per_element(GemmPrecision::kFp4) == 0.5 + 1.0 / 16);  // NVFP4: an FP8 scale per 16 elements
  GemmShape big{8192, 8192, 16384};
  GemmShape fp4 = big;
  fp4.precision = GemmPrecision::kFp4;
  const double fp8_s = gemm_seconds(b200, big, b200.sm_count, c), fp4_s = gemm_seconds(b200, fp4, b200.sm_count, c);
  CHECK(fp4_s < 0.65 * fp8_s);
  CHECK(fp4_s > 0.45 * fp8_s);
  CHECK(fp4.flops() / fp4_s < b200.fp4_dense_flops_per_s);
  // Decode: 16 rows against a 7168 x 7168 weight, bound by reading the weight.
  GemmShape decode{16, 7168, 7168};
  GemmShape decode_fp4 = decode;
  decode_fp4.precision = GemmPrecision::kFp4;
  const double ratio = (gemm_seconds(b200, decode_fp4, b200.sm_count, c) - c.launch_s) /
                       (gemm_seconds(b200, decode, b200.sm_count, c) - c.launch_s);
  CHECK(ratio == Approx(operand_bytes_per_element(GemmPrecision::kFp4) / operand_bytes_per_element(GemmPrecision::kFp8))
                     .epsilon(0.1));
}

TEST_CASE("a precision the GPU's tensor cores lack is refused, naming the GPUs that have it", "[kernels]") {
  CHECK_NOTHROW(require_precision(gpu_by_name("B200"), GemmPrecision::kFp4, "/compute/fp4_gemms"));
  CHECK_THROWS_WITH(
      require_precision(gpu_by_name("H100"), GemmPrecision::kFp4, "/compute/fp4_gemms"),
      "/compute/fp4_gemms: true is not allowed; the H100 has no FP4 tensor cores (GPUs that have: B200, GB200)");
  CHECK_THROWS_WITH(
      require_precision(gpu_by_name("A10G"), GemmPrecision::kFp8, "/compute/fp8_gemms"),
      Catch::StartsWith("/compute/fp8_gemms: true is not allowed; the A10G has no FP8 tensor cores (GPUs that have: "));
  CHECK_NOTHROW(require_precision(gpu_by_name("A10G"), GemmPrecision::kBf16, "/compute"));
}
