#include <catch2/catch.hpp>

#include "hw/gemm_fit.hpp"
#include "hw/gemm_library.hpp"
#include "hw/memory_kernel.hpp"

using namespace hw;

TEST_CASE("A GEMM fit recovers the constants that made its rows", "[kernels]") {
  const Gpu& h800 = gpu_by_name("H800");
  GemmCalibration truth;
  truth.mma_efficiency = 0.7;
  truth.masked_mma_efficiency = 0.55;
  truth.weight_gradient_efficiency = 0.5;
  truth.launch_s = 3e-6;
  std::vector<GemmMeasurement> rows;
  for (const auto& row : default_gemm_library().rows) {
    GemmMeasurement made = row;
    made.tflops = row.shape.flops() / gemm_seconds(h800, row.shape, h800.sm_count, truth) / 1e12;
    rows.push_back(made);
  }
  const GemmFit fit = fit_gemm_calibration(h800, rows);
  CHECK(fit.rms_log_error < 0.01);
  CHECK(fit.constants.mma_efficiency == Approx(truth.mma_efficiency).epsilon(0.03));
  CHECK(fit.constants.weight_gradient_efficiency == Approx(truth.weight_gradient_efficiency).epsilon(0.03));
}

TEST_CASE("DeepSeek's internal kernels are DeepGEMM's first table over its speedups", "[kernels]") {
  const GemmLibrary& first = gemm_library("deepgemm-2025-02", "");
  const GemmLibrary& internal = gemm_library("internal-cutlass-2025-02", "");
  // 4096 x 7168 x 16384: 1358 TFLOPS at 1.2x.
  bool found = false;
  for (const auto& row : internal.rows)
    if (row.shape.kind == GemmKind::kDense && row.shape.m == 4096 && row.shape.n == 7168 && row.shape.k == 16384) {
      CHECK(row.tflops == Approx(1358 / 1.2));
      CHECK(row.uncertainty == Approx(0.05 / 1.2));
      found = true;
    }
  CHECK(found);
  CHECK(internal.has(GemmKind::kWeightGradient));
  CHECK_FALSE(first.has(GemmKind::kWeightGradient));
  // Slower kernels, slower model: the same large GEMM takes longer with the internal constants.
  const Gpu& h800 = gpu_by_name("H800");
  const GemmShape big{4096, 7168, 16384};
  CHECK(gemm_seconds(h800, big, 112, internal.constants) > 1.1 * gemm_seconds(h800, big, 112, first.constants));
}

TEST_CASE("A library whose smallest tile is 128 rows times 64 rows nearly as 128", "[kernels]") {
  const Gpu& h100 = gpu_by_name("H100");
  // The row-scaled FP8 library declares it (its 64-row GEMMs measured as long as its 128-row
  // ones); its fit keeps it.
  const GemmLibrary& rowwise = gemm_library("cutlass-fp8-rowwise-h100-2026-11", "");
  CHECK(rowwise.constants.min_block_m == 128);
  CHECK(gemm_library("cublaslt-fp8-tensor-h100-2026-11", "").constants.min_block_m == 64);
  GemmCalibration c = rowwise.constants;
  for (double n : {4096.0, 7168.0, 24576.0}) {
    INFO("N = " << n);
    const GemmShape m64{64, n, 7168}, m128{128, n, 7168};
    CHECK(gemm_tiling(m64, 132, 128).block_m == 128);
    const double as_declared = gemm_seconds(h100, m64, 132, c);
    CHECK(as_declared == Approx(gemm_seconds(h100, m128, 132, c)).epsilon(0.1));
    c.min_block_m = 64;  // the same constants with DeepGEMM's 64-row tiles: never slower
    CHECK(gemm_tiling(m64, 132, 64).block_m == 64);
    CHECK(gemm_seconds(h100, m64, 132, c) <= as_declared);
    c.min_block_m = 128;
  }
}

TEST_CASE("A general-purpose library runs the kinds it has no kernel for as dense GEMMs", "[kernels]") {
  for (const char* name :
       {"cublaslt-fp8-tensor-h100-2026-11", "cutlass-fp8-rowwise-h100-2026-11", "cublas-bf16-h100-2026-11"}) {
    INFO(name);
    const GemmLibrary& lib = gemm_library(name, "");
    CHECK_FALSE(lib.has(GemmKind::kGroupedMasked));
    CHECK(lib.constants.masked_mma_efficiency == lib.constants.mma_efficiency);
    CHECK(lib.constants.weight_gradient_efficiency == lib.constants.mma_efficiency);
  }
  // DeepGEMM's first tables have masked kernels but no weight-gradient ones: nothing is borrowed.
  const GemmLibrary& first = gemm_library("deepgemm-2025-02", "");
  CHECK(first.constants.weight_gradient_efficiency == 0);
}

TEST_CASE("The memory-bound kernel model: one floor, a fraction of HBM per kind, time growing with bytes",
          "[kernels]") {
  const MemoryKernelModel& m = hopper_memory_kernels();
  for (int k = 0; k < kMemoryKernelKinds; ++k) {
    INFO(memory_kernel_kind_names()[k]);
    CHECK(m.rates[k].hbm_fraction > 0.3);
    CHECK(m.rates[k].hbm_fraction <= 1.0);
    CHECK(m.rates[k].floor_s == m.rates[0].floor_s);
    const auto kind = static_cast<MemoryKernelKind>(k);
    CHECK(m.seconds(kind, 2e8, 3.35e12) > m.seconds(kind, 1e8, 3.35e12));
  }
  CHECK(m.rate(MemoryKernelKind::kCastTranspose).hbm_fraction < m.rate(MemoryKernelKind::kElementwise).hbm_fraction);
}

TEST_CASE("each precision takes the library measured for its GPU's generation", "[kernels][data]") {
  CHECK(default_gemm_library(GemmPrecision::kFp8, "H100").name == "deepgemm-2025-05");
  CHECK(default_gemm_library(GemmPrecision::kBf16, "H100").name == "cublas-bf16-h100-2026-11");
  for (const std::string gpu : {"B200", "GB200"}) {
    CHECK(default_gemm_library(GemmPrecision::kFp8, gpu).name == "cublaslt-fp8-gb200-azure");
    const GemmLibrary& fp4 = default_gemm_library(GemmPrecision::kFp4, gpu);
    // Each Blackwell part its own FP4 rows: cuBLASLt's on the GB200, CUTLASS's on the B200.
    CHECK(fp4.name == (gpu == "B200" ? "cutlass-nvfp4-b200-2025" : "cublaslt-nvfp4-gb200-azure"));
    CHECK(fp4.precision == GemmPrecision::kFp4);
  }
  // The MI300X its own hipBLASLt rows: their clock under load (about 1.2 of 2.1 GHz) where the
  // datasheet's peak would make its GEMMs about 40% faster.
  CHECK(default_gemm_library(GemmPrecision::kBf16, "MI300X").name == "hipblaslt-bf16-mi300x");
  CHECK(default_gemm_library(GemmPrecision::kFp8, "MI300X").name == "hipblaslt-fp8-mi300x");
  CHECK(default_gemm_library(GemmPrecision::kBf16, "MI300X").constants.mma_efficiency < 0.6);
  // FP4 at its own rows: a large NVFP4 GEMM on the GB200 runs well past FP8's best.
  const Gpu& gb200 = gpu_by_name("GB200");
  GemmShape s;
  s.m = s.n = s.k = 8192;
  s.precision = GemmPrecision::kFp4;
  const double fp4_tflops =
      s.flops() / gemm_seconds(gb200, s, gb200.sm_count, default_gemm_library(GemmPrecision::kFp4, "GB200").constants) /
      1e12;
  s.precision = GemmPrecision::kFp8;
  const double fp8_tflops =
      s.flops() / gemm_seconds(gb200, s, gb200.sm_count, default_gemm_library(GemmPrecision::kFp8, "GB200").constants) /
      1e12;
  CHECK(fp4_tflops == Approx(7536).epsilon(0.15));  // Azure's cuBLASLt row
  CHECK(fp8_tflops == Approx(2877).epsilon(0.15));
}

TEST_CASE("a library of fewer rows than constants holds the ones another fit of its chip gives", "[kernels][data]") {
  const GemmLibrary& b200 = gemm_library("cutlass-nvfp4-b200-2025", "test");
  const GemmLibrary& gb200 = gemm_library("cublaslt-nvfp4-gb200-azure", "test");
  REQUIRE(b200.held == std::vector<std::string>{"l2_Bps"});
  CHECK(b200.held_from == gb200.name);
  CHECK(b200.constants.l2_Bps == gb200.constants.l2_Bps);
  // Its own constants fitted to its own rows: four rows, four constants, every row met.
  CHECK(b200.constants.launch_s != gb200.constants.launch_s);
  CHECK(b200.constants.hbm_efficiency != gb200.constants.hbm_efficiency);
  CHECK(b200.fit_rms_log_error < 1e-3);
  // The fit left alone does not hold what it is not told to: all five constants from the rows.
  const GemmFit free = fit_gemm_calibration(*gb200.measured_on, gb200.rows);
  CHECK(free.constants.l2_Bps == gb200.constants.l2_Bps);
  // A held constant is taken as given, whatever the rows say.
  GemmCalibration given;
  given.l2_Bps = 1e13;
  const GemmFit held = fit_gemm_calibration(*gb200.measured_on, gb200.rows, 64, {"l2_Bps"}, given);
  CHECK(held.constants.l2_Bps == 1e13);
  CHECK(held.rms_log_error > free.rms_log_error);
}
