#pragma once
// Time of a GPU kernel from a roofline: FLOPs over the achieved compute rate, or bytes over the
// achieved memory bandwidth, each the GPU's peak times an efficiency. The efficiencies are the
// scenario's, stated with where they come from (published kernel benchmarks), never fitted to
// the figure a scenario reproduces.
#include "hw/attention_backend.hpp"
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
      : Roofline(gpu, efficiency, fp8_gemms ? hw::GemmPrecision::kFp8 : hw::GemmPrecision::kBf16, gemm_library) {}
  // Linear layers in `precision`; FP4 takes the FP8 GEMMs' efficiency (an assumption).
  Roofline(const hw::Gpu& gpu, KernelEfficiency efficiency, hw::GemmPrecision precision,
           const hw::GemmLibrary& gemm_library = hw::default_gemm_library())
      : gpu_(&gpu), eff_(efficiency), precision_(precision), gemm_library_(&gemm_library) {}

  // A linear layer's GEMM in the recipe's precision.
  double linear_s(double flops) const {
    return precision_ == hw::GemmPrecision::kFp4   ? fp4_gemm_s(flops)
           : precision_ == hw::GemmPrecision::kFp8 ? fp8_gemm_s(flops)
                                                   : bf16_gemm_s(flops);
  }
  double fp4_gemm_s(double flops) const { return slow_ * flops / (gpu_->fp4_dense_flops_per_s * eff_.fp8_gemm); }
  double fp8_gemm_s(double flops) const { return slow_ * flops / (gpu_->fp8_dense_flops_per_s * eff_.fp8_gemm); }
  double bf16_gemm_s(double flops) const { return slow_ * flops / (gpu_->bf16_dense_flops_per_s * eff_.bf16_gemm); }
  double attention_forward_s(double flops) const {
    return slow_ * flops / (gpu_->bf16_dense_flops_per_s * eff_.attention_forward);
  }
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
  // Whether linear layers run quantised (FP8 or FP4, with the recipe's casts), not BF16.
  bool fp8_gemms() const { return precision_ != hw::GemmPrecision::kBf16; }
  hw::GemmPrecision gemm_precision() const { return precision_; }
  // Bytes a weight takes in HBM in the recipe's precision, its scales left out (under 7%).
  double weight_bytes() const {
    return precision_ == hw::GemmPrecision::kFp4 ? 0.5 : precision_ == hw::GemmPrecision::kFp8 ? 1.0 : 2.0;
  }
  const hw::GemmCalibration& gemm_constants() const { return gemm_library_->constants; }
  const hw::GemmLibrary& gemm_library() const { return *gemm_library_; }
  // Whether the GEMMs are timed by the kernel model: on GPUs with FP8 tensor cores (Hopper's
  // constants carry there), or where the recipe's library was measured (or scaled to).
  bool gemm_kernels() const { return gpu_->fp8_dense_flops_per_s > 0 || gemm_library_->runs_on_gpu(gpu_->name); }
  // The attention backend's constants: the engine's pick for the GPU, else the GPU's generation's.
  Roofline with_attention(const hw::AttentionBackend& backend) const {
    Roofline r = *this;
    r.attention_ = &backend;
    return r;
  }
  const hw::AttentionBackend& attention() const { return attention_ ? *attention_ : hw::attention_backend_for(*gpu_); }

 private:
  const hw::Gpu* gpu_;
  KernelEfficiency eff_;
  hw::GemmPrecision precision_;
  const hw::GemmLibrary* gemm_library_;
  const hw::AttentionBackend* attention_ = nullptr;
  double slow_ = 1;
};

}  // namespace workload
