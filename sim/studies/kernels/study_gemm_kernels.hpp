#pragma once
// The `gemm-kernels` scenario kind: a GEMM library's published rows (data/gemm_libraries/)
// beside the kernel model (hw/gemm_kernel.hpp) with the constants fitted to them, in TFLOPS.
#include <memory>

#include "studies/report/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_gemm_kernels_study(core::JsonReader& root);

}  // namespace studies
