#include "workload/profile/kernel_class.hpp"

#include <algorithm>
#include <cctype>

namespace workload {

KernelClass kernel_class(const std::string& name) {
  std::string n(name.size(), ' ');
  std::transform(name.begin(), name.end(), n.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  auto has = [&](const char* part) { return n.find(part) != std::string::npos; };
  if (has("::ep::") || has("deep_ep") || has("nccl")) return KernelClass::kCommunication;
  if (has("flash") || has("fmha")) return KernelClass::kAttention;
  if (has("gemm") && !has("transpose")) return KernelClass::kGemm;
  return KernelClass::kOther;
}

const char* kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kGemm:
      return "GEMM";
    case KernelClass::kAttention:
      return "attention";
    case KernelClass::kCommunication:
      return "communication";
    case KernelClass::kOther:
      return "memory-bound and other";
  }
  return "";
}

}  // namespace workload
