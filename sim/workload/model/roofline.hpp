#pragma once
// Time of a GPU kernel from a roofline: FLOPs over the achieved compute rate, or bytes over the
// achieved memory bandwidth, each the GPU's peak times an efficiency. The efficiencies are the
// scenario's, stated with where they come from (published kernel benchmarks), never fitted to
// the figure a scenario reproduces.
#include "hw/gemm_library.hpp"
#include "hw/gpu.hpp"

namespace workload {

struct KernelEfficiency {
  double fp8_gemm = 0.65;            // of the FP8 dense peak (DeepGEMM on H800: ~1300 of 1979 TFLOPS)
  double bf16_gemm = 0.70;           // of the BF16 dense peak (cuBLAS on H800: ~700 of 989 TFLOPS)
  double attention_forward = 0.55;   // of the BF16 peak (FlashAttention-3 forward, causal, 4K tokens)
  double attention_backward = 0.45;  // of the BF16 peak (FlashAttention-3 backward)
  double memory = 0.80;              // of the HBM bandwidth, for element-wise kernels
};

class Roofline {
 public:
  // `gemm_library`: whose kernel model times the GEMMs shape by shape.
  Roofline(const hw::Gpu& gpu, KernelEfficiency efficiency, bool fp8_gemms,
           const hw::GemmLibrary& gemm_library = hw::default_gemm_library())
      : gpu_(&gpu), eff_(efficiency), fp8_gemms_(fp8_gemms), gemm_library_(&gemm_library) {}

  // A linear layer's GEMM: FP8 where the recipe runs it in FP8, else BF16.
  double linear_s(double flops) const { return fp8_gemms_ ? fp8_gemm_s(flops) : bf16_gemm_s(flops); }
  double fp8_gemm_s(double flops) const { return slow_ * flops / (gpu_->fp8_dense_flops_per_s * eff_.fp8_gemm); }
  double bf16_gemm_s(double flops) const { return slow_ * flops / (gpu_->bf16_dense_flops_per_s * eff_.bf16_gemm); }
  double attention_forward_s(double flops) const { return slow_ * flops / (gpu_->bf16_dense_flops_per_s * eff_.attention_forward); }
  double attention_backward_s(double flops) const {
    return slow_ * flops / (gpu_->bf16_dense_flops_per_s * eff_.attention_backward);
  }
  double memory_s(double bytes) const { return slow_ * bytes / (gpu_->hbm_bandwidth_Bps * eff_.memory); }

  // The same kernels on a GPU shared with others: every time `factor` longer.
  Roofline slowed_by(double factor) const {
    Roofline r = *this;
    r.slow_ = slow_ * factor;
    return r;
  }

  const hw::Gpu& gpu() const { return *gpu_; }
  double slowdown() const { return slow_; }
  bool fp8_gemms() const { return fp8_gemms_; }
  const hw::GemmCalibration& gemm_constants() const { return gemm_library_->constants; }

 private:
  const hw::Gpu* gpu_;
  KernelEfficiency eff_;
  bool fp8_gemms_;
  const hw::GemmLibrary* gemm_library_;
  double slow_ = 1;
};

}  // namespace workload
