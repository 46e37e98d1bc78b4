#pragma once
// A GEMM library as it ran: its published rates (data/gemm_libraries/*.json, each row a measured
// shape) and the kernel model's constants fitted to them (hw/gemm_fit.hpp). A scenario names the
// library its kernels came from; DeepGEMM's table versions differ by up to 25% on one shape, and
// DeepSeek's own training ran its internal CUTLASS kernels, slower again.
#include <string>
#include <vector>

#include "hw/gemm_kernel.hpp"
#include "hw/gpu.hpp"

namespace hw {

struct GemmMeasurement {
  GemmShape shape;
  double tflops = 0;
  double uncertainty = 0;  // relative, where the rate is derived (e.g. from a rounded speedup)
};

struct GemmLibrary {
  std::string name, description, source;
  const Gpu* measured_on = nullptr;  // the rows' GPU, all its SMs
  std::vector<std::string> runs_on;  // the GPUs its kernels run on
  // GPUs with no rows of their own that take these constants scaled by their datasheets (SMs,
  // peaks, memory bandwidth): the nearest generation measured, an assumption each report flags.
  std::vector<std::string> scaled_to;
  GemmPrecision precision = GemmPrecision::kFp8;
  std::vector<GemmMeasurement> rows;
  GemmCalibration constants;  // fitted once to `rows`
  // Constants held from another library's fit, not fitted (hw/gemm_fit.hpp's names), and that library.
  std::vector<std::string> held;
  std::string held_from;
  double fit_rms_log_error = 0;

  bool has(GemmKind kind) const;
  bool runs_on_gpu(const std::string& gpu) const;  // measured there or scaled to it
  bool scaled_for(const std::string& gpu) const;   // only by its datasheet
};

std::vector<std::string> gemm_library_names();
// InputError at `where` for a name not in the data, listing those that are.
const GemmLibrary& gemm_library(const std::string& name, const std::string& where);
// What a scenario that names none takes: DeepGEMM with its weight-gradient kernels.
const GemmLibrary& default_gemm_library();
// ... for a recipe of `precision` on `gpu`: FP8 on Hopper takes DeepGEMM; otherwise a library of
// that precision whose kernels run on the GPU (cuBLAS BF16 per generation, Blackwell's cuBLASLt
// FP8 and NVFP4) where there is one, else DeepGEMM's constants (an assumption).
const GemmLibrary& default_gemm_library(GemmPrecision precision, const std::string& gpu);

// InputError at `where` when `library` has no rows of one of `kinds` (its model has nothing to
// time them by), naming the libraries that do.
void require_gemm_kinds(const GemmLibrary& library, const std::vector<GemmKind>& kinds, const std::string& where);

const std::vector<std::string>& gemm_kind_names();  // "dense", "grouped-contiguous", ... in GemmKind's order
GemmKind gemm_kind_from_name(const std::string& name);

}  // namespace hw
