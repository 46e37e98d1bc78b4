#pragma once
// Runs a TaskGraph on a Platform with SimGrid's flow-level network model (max-min fair sharing,
// link latency, no TCP effects) and returns the Timeline. Compute tasks become Execs, flows
// become Comms between GPU hosts, dependencies become SimGrid activity dependencies.
//
// SimGrid keeps one global engine per process that cannot be rebuilt, so each simulation runs
// in a forked child that sends its spans back through a pipe: a process can run any number of
// simulations, and a crash in one cannot corrupt the next.
#include "core/platform.hpp"
#include "core/task_graph.hpp"
#include "core/timeline.hpp"

namespace core {

struct SimulationStats {
  double wall_s = 0;
  std::size_t tasks = 0;
  std::size_t flows = 0;
};

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats = nullptr);

}  // namespace core
