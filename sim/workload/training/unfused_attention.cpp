#include "workload/training/unfused_attention.hpp"

#include "hw/gemm_kernel.hpp"
#include "workload/model/layer_memory_kernels.hpp"

namespace workload {

namespace {

double sum(const std::vector<KernelTime>& kernels) {
  double s = 0;
  for (const KernelTime& k : kernels) s += k.seconds;
  return s;
}

}  // namespace

double UnfusedAttention::forward_s() const { return sum(forward); }
double UnfusedAttention::backward_s() const { return sum(backward); }

UnfusedAttention unfused_attention(const Roofline& r, const UnfusedAttentionShape& s, int sms) {
  const double batch = s.sequences * s.heads;  // one GEMM of the batch per sequence and head
  const double n = s.tokens;
  // A batched GEMM: by the kernel model in BF16 where the recipe's library is a BF16 one that runs
  // on this GPU, else the roofline (an FP8 recipe's library was fitted to FP8 kernels).
  const bool kernels = r.gemm_kernels() && r.gemm_precision() == hw::GemmPrecision::kBf16;
  auto gemm = [&](const char* name, double m, double cols, double k) {
    const hw::GemmShape shape{m, cols, k, static_cast<int>(batch), hw::GemmKind::kDense, hw::GemmPrecision::kBf16};
    const double seconds =
        kernels ? hw::gemm_seconds(r.gpu(), shape, sms, r.gemm_constants()) : r.bf16_gemm_s(shape.flops());
    return KernelTime{name, seconds, KernelClass::kGemm};
  };
  // A kernel over every score: `bytes` read and written per score (FP16 scores, a byte of mask).
  auto scores = [&](const char* name, hw::MemoryKernelKind kind, double bytes) {
    const MemoryKernel k{name, kind, 0, s.heads * n * bytes};
    return KernelTime{name, memory_kernel_seconds(k, r, s.sequences * n, 0, 1, false), KernelClass::kOther};
  };
  using hw::MemoryKernelKind;
  UnfusedAttention a;
  a.forward.push_back(gemm("Q·Kᵀ (batched GEMM)", n, n, s.qk_head_dim));
  a.forward.push_back(scores("scale, mask and softmax (fused)", MemoryKernelKind::kRowReduction, 2 + 2));
  if (s.dropout) a.forward.push_back(scores("dropout of the probabilities", MemoryKernelKind::kElementwise, 2 + 2 + 1));
  a.forward.push_back(gemm("P·V (batched GEMM)", n, s.v_head_dim, n));
  a.backward.push_back(gemm("dP = dO·Vᵀ (batched GEMM)", n, n, s.v_head_dim));
  a.backward.push_back(gemm("dV = Pᵀ·dO (batched GEMM)", n, s.v_head_dim, n));
  if (s.dropout) a.backward.push_back(scores("dropout backward", MemoryKernelKind::kElementwise, 2 + 1 + 2));
  a.backward.push_back(scores("softmax backward", MemoryKernelKind::kRowReduction, 2 + 2 + 2));
  a.backward.push_back(gemm("dQ = dS·K (batched GEMM)", n, s.qk_head_dim, n));
  a.backward.push_back(gemm("dK = dSᵀ·Q (batched GEMM)", n, s.qk_head_dim, n));
  return a;
}

double unfused_attention_activation_bytes_per_token(double heads, double tokens, bool dropout) {
  return (2 + (dropout ? 3 : 0)) * heads * tokens;
}

}  // namespace workload
