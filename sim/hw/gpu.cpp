#include "hw/gpu.hpp"

#include "core/catalogue.hpp"

namespace hw {

namespace {

const std::vector<Gpu>& catalogue() {
  static const std::vector<Gpu> gpus = {
      // H800 SXM: 132 SMs (ISCA'25 §4.1 and DeepSeek-V3 report §3.2.2); dense BF16 989.4 TFLOPS and
      // FP8 1978.9 TFLOPS (NVIDIA H100/H800 SXM datasheet, without sparsity); HBM3 80 GB at 3.35 TB/s;
      // peaks quoted at the 1830 MHz boost clock (NVIDIA H100 Tensor Core GPU Architecture, Table 3).
      {"H800", 132, 989.4e12, 1978.9e12, 80e9, 3.35e12, 1830e6},
      // H100 SXM: same compute die and memory as H800 (NVIDIA H100 datasheet); only NVLink differs.
      {"H100", 132, 989.4e12, 1978.9e12, 80e9, 3.35e12, 1830e6},
      // H200 SXM: H100 compute with HBM3e 141 GB at 4.8 TB/s (NVIDIA H200 datasheet).
      {"H200", 132, 989.4e12, 1978.9e12, 141e9, 4.8e12, 1830e6},
      // A100 80GB SXM: 108 SMs, dense BF16 312 TFLOPS at the 1410 MHz boost clock, no FP8 tensor
      // cores; HBM2e 80 GB at 2.039 TB/s (NVIDIA A100 datasheet and Ampere architecture whitepaper).
      {"A100", 108, 312e12, 0, 80e9, 2.039e12, 1410e6},
      // H20: 78 SMs of the Hopper die, dense BF16 148 TFLOPS and FP8 296 TFLOPS; HBM3 96 GB at
      // 4.0 TB/s (NVIDIA H20 product brief); clock not published.
      {"H20", 78, 148e12, 296e12, 96e9, 4.0e12, 0},
      // B200 in an HGX B200: dense BF16 2.25 PFLOPS and FP8 4.5 PFLOPS (half the sparse figures of
      // the HGX B200 datasheet, 18/36 PFLOPS over 8 GPUs), 180 GB HBM3e at 7.7 TB/s; 148 SMs.
      {"B200", 148, 2.25e15, 4.5e15, 180e9, 7.7e12, 0},
      // B200 as in GB200 NVL72: per GPU 2.5 PFLOPS dense BF16, 5 PFLOPS dense FP8 (half the sparse
      // figures of the GB200 NVL72 datasheet: 180/360 PFLOPS sparse over 72 GPUs), 186 GB HBM3e
      // (13.4 TB over 72 GPUs) at 8 TB/s; 148 SMs (Blackwell B200).
      {"GB200", 148, 2.5e15, 5.0e15, 186e9, 8.0e12, 0},
  };
  return gpus;
}

}  // namespace

std::vector<std::string> gpu_names() { return core::names_of(catalogue()); }

const Gpu& gpu_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(catalogue(), name, "GPU", where);
}

}  // namespace hw
