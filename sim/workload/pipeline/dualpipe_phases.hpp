#pragma once
// The eight phases of DualPipe's reference implementation for one rank, shared by DualPipe and
// DualPipeV. Lanes are local: lane 0 is the direction (or chunk) whose micro-batches reach this
// rank first; the caller maps local lanes and indices to chunks.
#include <functional>

#include "workload/pipeline/pipeline_schedule.hpp"

namespace workload {

struct DualPipeRank {
  int half_ranks = 0;   // H = PP / 2
  int half_rank = 0;    // h = min(r, PP - 1 - r)
  int per_lane = 0;     // M: micro-batches per lane
  bool middle = false;  // the two middle ranks do not overlap their first F&B pair
};

// Calls `emit` with the steps in order; chunk fields are local (lane, index) only.
void dualpipe_phases(const DualPipeRank& rank, const std::function<void(Step)>& emit);

}  // namespace workload
