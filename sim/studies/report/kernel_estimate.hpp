#pragma once
// What a kernel model says of one case asked of it directly (codesim kernel, codesim.kernels):
// the kernels' and the network's queries both report it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace studies {

// What the model says of one case: its time, its rate, what bounds it, and its terms.
struct KernelEstimate {
  std::string model;  // the library, backend or kind of kernel that timed it
  double seconds = 0;
  double rate = 0;
  std::string rate_unit;  // TFLOPS or GB/s
  std::string bound;      // compute, memory or launch
  std::vector<std::pair<std::string, double>> terms;
};

// A case as read: a description of its shape, the family it belongs to for summaries ("gemm
// bf16", "attention cudnn forward+backward"), and the reference time the row carries.
struct KernelCase {
  std::string kind;  // gemm, attention, memory, collective
  std::string description, family;
  std::optional<double> reference_s;
};

// Overrides for every case (the CLI's --gpu, --library, --backend with --in).
struct KernelDefaults {
  std::string gpu = "H100";
  std::string library, backend;
};

}  // namespace studies
