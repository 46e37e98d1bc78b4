#pragma once
// Time of a memory-bound kernel on a GPU: a fixed floor per launch plus its bytes at a fraction of
// the GPU's HBM bandwidth, both by kind of kernel, fitted once per GPU generation to its published
// microbenchmarks (data/memory_kernels/: hopper.json, ampere.json, ...; `codesim tables --only
// kernels` and `--only gpu-parts` show the fits row by row). Kinds differ in how near the HBM rate they come: a row
// reduction or an element-wise kernel streams, a cast also reduces each row's scale, a transpose breaks coalescing on
// one side, a permute gathers rows by index.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "hw/gpu.hpp"

namespace hw {

enum class MemoryKernelKind { kRowReduction, kElementwise, kCast, kCastTranspose, kPermute };
constexpr int kMemoryKernelKinds = 5;
const std::vector<std::string>& memory_kernel_kind_names();  // in MemoryKernelKind's order

struct MemoryKernelMeasurement {
  std::string kernel, shape, gpu, source;
  MemoryKernelKind kind = MemoryKernelKind::kElementwise;
  double bytes = 0, seconds = 0;
  double hbm_Bps = 0;  // the measuring GPU's
};

struct MemoryKernelRate {
  double floor_s = 0;       // per launch: start, tail and end of a kernel too small to stream
  double hbm_fraction = 0;  // of the GPU's HBM bandwidth, once streaming
};

struct MemoryKernelModel {
  std::string name, source;
  std::vector<std::string> runs_on;    // GPUs of its rows' generation
  std::vector<std::string> scaled_to;  // GPUs without rows that take its fractions (an assumption)
  std::vector<MemoryKernelMeasurement> rows;
  std::array<MemoryKernelRate, kMemoryKernelKinds> rates{};  // fitted to `rows`, kind by kind
  // What a kernel replayed in a CUDA graph saves of its fixed cost against one launched on a
  // stream (back-to-back tiny kernels timed both ways): the host's launch, not the GPU's own
  // start and end. The same for every kernel of the generation; the serving step takes it off the
  // memory-bound kernels' floor and each GEMM's launch term (workload/inference).
  double graph_launch_saving_s = 0;
  // A kernel's fixed cost `stream_s`, as launched on a stream, when replayed in a CUDA graph.
  double in_cuda_graph_s(double stream_s) const { return std::max(0.0, stream_s - graph_launch_saving_s); }
  // Kinds without rows here, which take Hopper's fraction of HBM (an assumption).
  std::array<bool, kMemoryKernelKinds> borrowed{};

  const MemoryKernelRate& rate(MemoryKernelKind kind) const { return rates[static_cast<int>(kind)]; }
  double seconds(MemoryKernelKind kind, double bytes, double hbm_Bps, int launches = 1) const {
    const MemoryKernelRate& r = rate(kind);
    return launches * r.floor_s + bytes / (r.hbm_fraction * hbm_Bps);
  }
};

// Each model is fitted to its file's rows: one floor for all kinds and a fraction per kind,
// minimising the squared relative error of the time (a linear least squares).
const MemoryKernelModel& hopper_memory_kernels();
// The model of `gpu`'s generation (its runs_on or scaled_to); Hopper's for a GPU no file names.
const MemoryKernelModel& memory_kernels_for(const Gpu& gpu);
// InputError at `where` for a name not in the data.
const MemoryKernelModel& memory_kernel_model(const std::string& name, const std::string& where);
std::vector<std::string> memory_kernel_model_names();

}  // namespace hw
