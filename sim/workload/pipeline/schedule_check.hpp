#pragma once
// Proves a generated schedule sound: every micro-batch does F, and B (or B* then W), exactly
// once on every stage of its path, on the rank that holds that stage; on each rank a backward
// follows its forward and a weight pass its input backward; and the ranks' orders together
// cannot deadlock (every step's inputs are produced before it in some execution).
#include <string>
#include <vector>

#include "workload/pipeline/pipeline_schedule.hpp"

namespace workload {

// The problems found; empty when the schedule is sound.
std::vector<std::string> check_schedule(const Schedule& schedule);

// The steps in an order that respects both every rank's order and every data dependency, as
// (rank, step index) pairs. Throws std::logic_error on a deadlock.
std::vector<std::pair<int, int>> execution_order(const Schedule& schedule);

}  // namespace workload
