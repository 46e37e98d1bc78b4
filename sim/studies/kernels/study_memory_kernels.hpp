#pragma once
// The `memory-kernels` scenario kind: the published memory-bound kernel microbenchmarks
// (data/memory_kernels/) beside the kernel model fitted to them (hw/memory_kernel.hpp), in us.
#include <memory>

#include "studies/report/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_memory_kernels_study(core::JsonReader& root);

}  // namespace studies
