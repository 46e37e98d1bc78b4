#pragma once
// The scenario's "compute" section: the GEMM precision, the kernel efficiencies of the roofline
// (each a fraction of a peak, from published kernel benchmarks) and the SMs communication takes.
#include "core/json_reader.hpp"
#include "workload/roofline.hpp"

namespace core {

struct ComputeConfig {
  workload::KernelEfficiency efficiency;
  bool fp8_gemms = true;
  int comm_sms = 0;
};

// Reads {"fp8_gemms", "fp8_gemm_efficiency", "bf16_gemm_efficiency", "attention_forward_efficiency",
// "attention_backward_efficiency", "memory_efficiency", "communication_sms"}, all optional.
ComputeConfig parse_compute(JsonReader c, int sm_count, int default_comm_sms);

}  // namespace core
