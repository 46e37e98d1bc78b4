#include <catch2/catch.hpp>

#include "hw/all_reduce.hpp"
#include "hw/attention_backend.hpp"
#include "hw/flash_attention_fit.hpp"
#include "hw/gemm_library.hpp"
#include "hw/memory_kernel.hpp"
#include "studies/config/engine_config.hpp"

using namespace hw;

TEST_CASE("each GPU takes its own generation's kernels, or the nearest measured one scaled", "[kernels][generations]") {
  CHECK(default_gemm_library(GemmPrecision::kBf16, "A100").name == "cublas-fp16-a100-vidur-2024");
  const GemmLibrary& pcie = default_gemm_library(GemmPrecision::kBf16, "L40S");
  CHECK(pcie.name == "cublas-fp16-a40-vidur-2024");
  CHECK(pcie.scaled_for("L40S"));
  CHECK_FALSE(pcie.scaled_for("A40"));
  CHECK(default_gemm_library(GemmPrecision::kBf16, "H100").name == "cublas-bf16-h100-2026-11");

  CHECK(memory_kernels_for(gpu_by_name("A100")).name == "ampere");
  CHECK(memory_kernels_for(gpu_by_name("L4")).name == "ampere-ada-pcie");
  CHECK(memory_kernels_for(gpu_by_name("GB200")).name == "blackwell");
  CHECK(memory_kernels_for(gpu_by_name("H200")).name == "hopper");
  // Ampere has no cast rows: its casts stream at Hopper's fraction, with its own floor.
  const MemoryKernelModel& ampere = memory_kernels_for(gpu_by_name("A100"));
  CHECK(ampere.borrowed[static_cast<int>(MemoryKernelKind::kCast)]);
  CHECK_FALSE(ampere.borrowed[static_cast<int>(MemoryKernelKind::kRowReduction)]);
  CHECK(ampere.rate(MemoryKernelKind::kCast).hbm_fraction ==
        hopper_memory_kernels().rate(MemoryKernelKind::kCast).hbm_fraction);
  CHECK(ampere.rate(MemoryKernelKind::kCast).floor_s == ampere.rate(MemoryKernelKind::kRowReduction).floor_s);

  CHECK(attention_backend_for(gpu_by_name("A100")).name == "fa2-ampere");
  CHECK(attention_backend_for(gpu_by_name("L40S")).name == "fa2-ada");
  CHECK(attention_backend_for(gpu_by_name("B200")).name == "fa4-blackwell");
  CHECK(attention_backend_for(gpu_by_name("H800")).name == "fa3");
  CHECK(attention_backend_for(gpu_by_name("MI300X")).name == "fa3");  // no rows of its own: Hopper's, scaled
}

TEST_CASE("an engine picks the first backend of its list that runs on the GPU", "[kernels][generations]") {
  const auto& vllm = studies::engine_by_name("vllm", "engine");
  CHECK(attention_backend_for(gpu_by_name("A100"), vllm.attention_backends).name == "fa2-ampere");
  CHECK(attention_backend_for(gpu_by_name("H100"), vllm.attention_backends).name == "fa3");
  CHECK(attention_backend_for(gpu_by_name("B200"), vllm.attention_backends).name == "fa4-blackwell");
  CHECK(attention_backend_for(gpu_by_name("A100"), {"fa3", "fa2-ampere"}).name ==
        "fa2-ampere");  // FA3 does not run on Ampere
  CHECK(studies::engine_by_name("bare", "engine").attention_backends.empty());
}

TEST_CASE("a decode kernel: launch, units over the SMs, KV reads; split when units are few", "[kernels][generations]") {
  const Gpu& a100 = gpu_by_name("A100");
  const DecodeAttentionCalibration c{8e-6, 5e-6, 1e-6, 0.8, 2, 256};
  // 64 sequences of 32 heads: 2,048 units, 19 waves, no split; the bytes at 0.8 of HBM.
  const double bytes = 64 * 32 * 1024 * 512.0;
  const DecodeAttentionTime t = decode_attention_time(a100, {64, 32, 1024, bytes}, a100.sm_count, c);
  CHECK(t.splits == 1);
  CHECK(t.waves == 19);
  CHECK(t.stream_s == Approx(bytes / (0.8 * a100.hbm_bandwidth_Bps)));
  CHECK(t.fixed_s == Approx(8e-6 + 19 * 1e-6));
  CHECK(t.seconds == Approx(t.stream_s + t.fixed_s));
  // One request of 32 heads: its keys split over the idle SMs (3 a head), and the parts merged.
  const DecodeAttentionTime one = decode_attention_time(a100, {1, 32, 16384, 32 * 16384 * 512.0}, a100.sm_count, c);
  CHECK(one.splits == 3);
  CHECK(one.fixed_s == Approx(8e-6 + 5e-6 + 1e-6));
  // A short one splits no further than its keys' chunks, and its 32 SMs stream at twice their
  // even share: 64/108 of the kernel's rate.
  const DecodeAttentionTime short_one = decode_attention_time(a100, {1, 32, 256, 32 * 256 * 512.0}, a100.sm_count, c);
  CHECK(short_one.splits == 1);
  CHECK(short_one.stream_s == Approx(32 * 256 * 512.0 / (0.8 * a100.hbm_bandwidth_Bps * 64 / 108)));
  // Fitting rows made by known constants gives them back.
  const AttentionBackend& flashinfer = attention_backend("flashinfer-decode-ampere", "test");
  std::vector<DecodeAttentionMeasurement> rows = flashinfer.decode_rows;
  for (auto& row : rows) row.hbm_share = decode_attention_share(a100, row, c);
  DecodeAttentionCalibration start = c;
  start.launch_s = 2e-6;
  start.unit_s = 3e-6;
  start.hbm_share = 0.6;
  const DecodeAttentionFit fit = fit_decode_attention(a100, rows, start, {"launch_s", "unit_s", "hbm_share"});
  CHECK(fit.constants.launch_s == Approx(8e-6).epsilon(1e-3));
  CHECK(fit.constants.unit_s == Approx(1e-6).epsilon(1e-3));
  CHECK(fit.constants.hbm_share == Approx(0.8).epsilon(1e-3));
  CHECK(fit.rms_log_error < 1e-3);
}

TEST_CASE("backends name the decode kernel their engines run; a base's carries over", "[kernels][generations]") {
  const AttentionBackend& fa2 = attention_backend("fa2-ampere", "test");
  CHECK(fa2.decode_kernel == "fa2-decode-ampere");
  CHECK(fa2.decode.hbm_share == attention_backend("fa2-decode-ampere", "test").decode.hbm_share);
  // FA2 on Ada has no decode rows: Ampere's kernel, by the datasheet.
  CHECK(attention_backend("fa2-ada", "test").decode_kernel == "fa2-decode-ampere");
  CHECK(attention_backend("flashinfer-ampere", "test").decode_kernel == "flashinfer-decode-ampere");
  CHECK(attention_backend("fa4-blackwell", "test").decode_kernel == "trtllm-decode-blackwell");
  CHECK_FALSE(attention_backend("fa3", "test").decode.valid());  // Hopper: no decode rows, the roofline
  // FA2's decode holds FlashInfer's per-unit costs: its rows are single requests, one wave each.
  const AttentionBackend& fa2_decode = attention_backend("fa2-decode-ampere", "test");
  CHECK(fa2_decode.held_from == "flashinfer-decode-ampere");
  CHECK(fa2_decode.decode.unit_s == attention_backend("flashinfer-decode-ampere", "test").decode.unit_s);
  // Decode kernels are never a GPU's prefill backend; SGLang picks FlashInfer on Ampere and Ada.
  const auto& sglang = studies::engine_by_name("sglang", "engine");
  CHECK(attention_backend_for(gpu_by_name("A100"), sglang.attention_backends).name == "flashinfer-ampere");
  CHECK(attention_backend_for(gpu_by_name("L40S"), sglang.attention_backends).name == "flashinfer-ada");
  // A decode call bound by its FLOPs (many query tokens a KV head) takes the tensor cores' time.
  const Gpu& a100 = gpu_by_name("A100");
  const double flops = 1e12;
  const DecodeAttentionTime t = backend_decode_time(a100, fa2, {1, 8, 1024, 8 * 1024 * 512.0}, flops, a100.sm_count);
  CHECK(t.bound() == "compute");
  CHECK(t.seconds == Approx(flops / (a100.bf16_dense_flops_per_s * fa2.flash.mma_efficiency)));
}

TEST_CASE("an attention fit recovers the constants that made its rows", "[kernels][generations]") {
  const Gpu& a100 = gpu_by_name("A100");
  const AttentionBackend& fa2 = attention_backend("fa2-ampere", "test");
  FlashAttentionCalibration truth = fa2.flash;
  truth.mma_efficiency = 0.8;
  truth.backward_mma_efficiency = 0.6;
  std::vector<AttentionMeasurement> rows = fa2.rows;
  for (auto& row : rows) row.tflops = attention_rate_tflops(a100, row, truth);
  FlashAttentionCalibration start = truth;
  start.mma_efficiency = 0.5;
  start.backward_mma_efficiency = 0.4;
  const FlashAttentionFit fit = fit_flash_attention(a100, rows, start, {"mma_efficiency", "backward_mma_efficiency"});
  CHECK(fit.constants.mma_efficiency == Approx(0.8).epsilon(1e-3));
  CHECK(fit.constants.backward_mma_efficiency == Approx(0.6).epsilon(1e-3));
  CHECK(fit.rms_log_error < 1e-3);
  // FA2 runs the softmax after the tensor cores, FA3 beside them: the same constants are slower.
  FlashAttentionCalibration overlapped = truth;
  overlapped.overlap_softmax = true;
  const AttentionShape shape{2, 16, 8192, 8192, 128, 128, false};
  CHECK(flash_attention_forward_seconds(a100, shape, a100.sm_count, truth) >
        flash_attention_forward_seconds(a100, shape, a100.sm_count, overlapped));
}

TEST_CASE("a fabric's measured all-reduce times the nodes it names", "[kernels][generations]") {
  const AllReduceFit* a100 = all_reduce_for("dgx-a100");
  REQUIRE(a100);
  CHECK(a100->name == "nccl-all-reduce-dgx-a100");
  CHECK(all_reduce_for("h100") == nullptr);  // keeps the ring over its NVLink rate
  REQUIRE(all_reduce_for("g6e-l40s"));
  CHECK(all_reduce_for("g6e-l40s")->name == "nccl-all-reduce-pcie");
  CHECK(a100->seconds(1, 1 << 20) == 0);
  CHECK(a100->seconds(8, 1 << 20) > a100->latency_s);
  CHECK(a100->seconds(8, 1 << 26) > a100->seconds(8, 1 << 20));
  // The fit is a least squares of the relative error: its rows straddle it.
  int above = 0;
  for (const auto& r : a100->rows) above += a100->seconds(r.ranks, r.bytes) > r.seconds;
  CHECK(above > 0);
  CHECK(above < static_cast<int>(a100->rows.size()));
}

TEST_CASE("a mesh's all-reduce drives a link to each peer, its per-call time held", "[kernels][generations]") {
  const AllReduceFit* mi300x = all_reduce_for("mi300x");
  REQUIRE(mi300x);
  CHECK(mi300x->fabric == AllReduceFabric::kMesh);
  // The bus bandwidth grows with the group: a pair has one link, eight GPUs seven each.
  CHECK(mi300x->bus_bandwidth_Bps(8) == Approx(7 * mi300x->bus_bandwidth_Bps(2)));
  CHECK(mi300x->seconds(2, 1 << 26) > 3 * mi300x->seconds(8, 1 << 26));
  // The measured bus bandwidths (312.9 GB/s on 8, 47.7 on 2) straddle (n - 1) x one link's.
  CHECK(mi300x->bus_bandwidth_Bps(8) > 7 * 44.7e9);
  CHECK(mi300x->bus_bandwidth_Bps(2) < 47.7e9);
  // RCCL's own model of a link (48 GB/s a direction) within 5%, though not fitted to.
  CHECK(mi300x->busbw_Bps == Approx(48e9).epsilon(0.05));
  // Its 4 GiB rows cannot show a per-call time: it is the DGX H100's, not fitted.
  CHECK(mi300x->latency_held_from == "nccl-all-reduce-dgx-h100");
  CHECK(mi300x->latency_s == all_reduce_fit("nccl-all-reduce-dgx-h100", "test").latency_s);
  // A switched fabric's bus bandwidth is the group's whatever its size.
  const AllReduceFit* a100 = all_reduce_for("dgx-a100");
  CHECK(a100->bus_bandwidth_Bps(2) == a100->bus_bandwidth_Bps(8));
}
