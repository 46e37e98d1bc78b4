#pragma once
// A schedule's bubble in closed form, over equal stages: the DeepSeek-V3 report's Table 2 for
// 1F1B, ZB1P and DualPipe, DualPipeV as DualPipe over its two stages per rank, and the interleaved
// 1F1B's (p - 1)(F + B) of one virtual stage's chunks (Narayanan et al., 2021). The simulated
// schedule departs from it where stages differ, and for ZB1P and the DualPipes away from the
// design points their formulas assume (see the pipeline study's notes).
#include <optional>
#include <string>

#include "workload/pipeline/pipeline_simulation.hpp"

namespace workload {

// `ranks`: the pipeline's devices; `t`: one stage's chunks.
std::optional<double> balanced_bubble_s(const std::string& schedule_kind, int ranks, const PassTimes& t);

}  // namespace workload
