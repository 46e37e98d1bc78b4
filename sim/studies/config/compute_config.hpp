#pragma once
// The scenario's "compute" section: the GEMM precision, the kernel efficiencies of the roofline
// (each a fraction of a peak, from published kernel benchmarks) and the SMs communication takes.
#include "core/json_reader.hpp"
#include "hw/gpu.hpp"
#include "workload/model/roofline.hpp"
#include "workload/moe/comm_kernels.hpp"

namespace studies {

struct ComputeConfig {
  workload::KernelEfficiency efficiency;
  bool fp8_gemms = true;  // quantised linear layers: FP8, or FP4 where fp4_gemms says
  bool fp4_gemms = false;
  workload::CommKernels kernels;  // the SMs communication takes, and what they drive
  const hw::GemmLibrary* gemm_library = &hw::default_gemm_library();

  hw::GemmPrecision precision() const {
    return fp4_gemms ? hw::GemmPrecision::kFp4 : fp8_gemms ? hw::GemmPrecision::kFp8 : hw::GemmPrecision::kBf16;
  }
  workload::Roofline roofline(const hw::Gpu& gpu) const { return {gpu, efficiency, precision(), *gemm_library}; }
};

// Reads {"fp8_gemms", "fp4_gemms", "fp8_gemm_efficiency", "bf16_gemm_efficiency", "attention_forward_efficiency",
// "attention_backward_efficiency", "memory_efficiency", "communication_sms",
// "channel_ib_bandwidth_Bps", "channel_nvlink_bandwidth_Bps", "gemm_library"}, all optional.
// FP8 GEMMs by default where the GPU has FP8 tensor cores; refused where it has none. FP4 GEMMs
// (NVFP4 weights and activations, "fp4_gemms": true) where the GPU has FP4 tensor cores, for
// inference (a study that times weight gradients refuses them). Without a named library a recipe
// takes hw::default_gemm_library for its precision and GPU (Blackwell: cuBLASLt FP8 or NVFP4). A named GEMM
// library must run on the GPU, in the recipe's precision, and have rows of every kind in
// `gemm_kinds` (what the study times); without one, the default library's constants are taken
// as they are on any GPU and precision (an assumption where it did not run); "default" says so.
// `preferred_libraries`: a serving engine's, in its order: where the scenario names no library, the
// first of them that runs on the GPU in the recipe's precision with rows of every kind in
// `gemm_kinds` (else the default).
ComputeConfig parse_compute(core::JsonReader c, const hw::Gpu& gpu, int default_comm_sms,
                            const std::vector<hw::GemmKind>& gemm_kinds,
                            const std::vector<std::string>& preferred_libraries = {});

// The channel rates of communication kernels on `sms` SMs ("channel_ib_bandwidth_Bps",
// "channel_nvlink_bandwidth_Bps"); refuses SMs that do not form whole channels.
workload::CommKernels read_comm_kernels(core::JsonReader& c, int sms);
// Refuses, at the reader's "communication_sms", SMs that do not form whole channels.
void check_comm_sms(const core::JsonReader& c, int sms);

}  // namespace studies
