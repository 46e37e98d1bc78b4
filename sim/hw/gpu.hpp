#pragma once
// One GPU model as data: compute peaks and memory, read from data/gpus/*.json, where every figure
// carries its source (AMD's compute units count as SMs).
#include <string>
#include <vector>

namespace hw {

struct Gpu {
  std::string name;
  std::string vendor = "NVIDIA";  // NVIDIA or AMD: what software runs on it (engines, libraries)
  int sm_count = 0;
  double bf16_dense_flops_per_s = 0;  // MFU denominator
  double fp8_dense_flops_per_s = 0;   // 0: no FP8 tensor cores
  double fp4_dense_flops_per_s = 0;   // NVFP4 / MXFP4; 0: no FP4 tensor cores
  double hbm_bytes = 0;               // device memory (GDDR on the PCIe parts)
  double hbm_bandwidth_Bps = 0;
  double boost_clock_Hz = 0;  // the clock the dense peaks are quoted at; 0 where not published
  // Datasheet figures the kernel models do not take (yet): 0 where the file does not give them.
  double fp16_dense_flops_per_s = 0;
  double int8_dense_ops_per_s = 0;
  double l2_bytes = 0;
  double tdp_W = 0;
};

// Throws core::InputError naming `where` when the name is unknown.
const Gpu& gpu_by_name(const std::string& name, const std::string& where = "");
std::vector<std::string> gpu_names();
const std::vector<std::string>& gpu_vendors();  // what Gpu::vendor may be

}  // namespace hw
