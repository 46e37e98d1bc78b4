#pragma once
// What a kernel does, from its name: a GEMM (cuBLAS, CUTLASS, DeepGEMM: "gemm" in the name, but
// not the small transposes of GEMM libraries' utilities), attention (FlashAttention, FMHA),
// communication (DeepEP's "::ep::" kernels, NCCL), or the memory-bound rest (norms, casts,
// element-wise, copies, top-k). Where our model's time goes, to hold beside a profile's.
#include <string>

namespace workload {

enum class KernelClass { kGemm, kAttention, kCommunication, kOther };
KernelClass kernel_class(const std::string& name);
const char* kernel_class_name(KernelClass c);

// A kernel (or exposed collective) the model times inside an op.
struct KernelTime {
  std::string name;
  double seconds = 0;
  KernelClass kind = KernelClass::kOther;
};

}  // namespace workload
