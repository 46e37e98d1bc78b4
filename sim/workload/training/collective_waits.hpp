#pragma once
// How long a step's collectives wait for their last member, and who that member was: where a
// straggler's lost time goes. A collective is a barrier of the step graph where GPUs meet (an EP
// group's dispatch or combine, the data-parallel synchronisation's start); each instance waits
// from its first member's arrival to its last one's.
#include <string>
#include <vector>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"

namespace workload {

struct StepCollective {
  core::TaskId barrier = -1;          // the join its members meet at; its name is the collective's
  std::vector<core::TaskId> members;  // one task per GPU
  std::vector<int> member_gpus;       // empty: each member task's rank
  // A member arrives when its task starts (the collective's own transfer, ready to send) or
  // ends (the work it finishes before meeting the others).
  bool arrive_at_end = false;
};

struct CollectiveWait {
  std::string name;
  std::size_t instances = 0;
  double mean_s = 0;  // from the first member's arrival to the last one's
  double max_s = 0;
  int gating_gpu = -1;    // the GPU that arrived last (strictly) at the most instances
  std::size_t gated = 0;  // at how many
  // The instances one of the `slow` GPUs arrived last at, and their mean wait.
  std::size_t gated_by_slow = 0;
  double slow_mean_s = 0;
};

// Per collective name, in the order they first appear. `slow`: GPUs (stragglers) whose
// instances to count apart, sorted.
std::vector<CollectiveWait> collective_waits(const std::vector<StepCollective>& collectives,
                                             const core::Timeline& timeline, const std::vector<int>& slow = {});

}  // namespace workload
