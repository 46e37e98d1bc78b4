#pragma once
// The `gemm-kernels` scenario kind: FP8 GEMMs of given shapes timed by the kernel model
// (hw/gemm_kernel.hpp), in TFLOPS, beside published microbenchmarks.
#include <memory>

#include "studies/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_gemm_kernels_study(core::JsonReader& root);

}  // namespace studies
