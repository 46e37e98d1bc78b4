#pragma once
// The `all-reduce-kernels` scenario kind: a fabric's measured NCCL all-reduces
// (data/collectives/) beside the fit of a per-call time and a bus bandwidth to them
// (hw/all_reduce.hpp), and the ring over the node's scale-up rate it replaces, in us.
#include <memory>

#include "studies/report/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_all_reduce_kernels_study(core::JsonReader& root);

}  // namespace studies
