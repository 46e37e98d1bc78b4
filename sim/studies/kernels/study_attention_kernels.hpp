#pragma once
// The `attention-kernels` scenario kind: FlashAttention-3 forward and backward passes of given
// shapes timed by the kernel model (hw/flash_attention.hpp), in TFLOPS, beside published
// microbenchmarks.
#include <memory>

#include "studies/report/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_attention_kernels_study(core::JsonReader& root);

}  // namespace studies
