#pragma once
// The flow-level model on SimGrid itself: compute tasks become Execs, flows become Comms
// between GPU hosts, one actor per (rank, stream). CM02 with exact (full) max-min solves; CM02
// weights a flow by its route's latency, so for plain max-min sharing the links carry none and
// each flow starts its route's latency after its transfer instead (a flow without latency has
// weight 1).
//
// SimGrid keeps one global engine per process that cannot be rebuilt, so each simulation runs
// in a forked child that sends its spans back through a pipe: a process can run any number of
// simulations, and a crash in one cannot corrupt the next.
#include "core/engine.hpp"

namespace core {

Timeline simulate_simgrid(const Platform& platform, const TaskGraph& graph, SimulationStats* stats = nullptr);

}  // namespace core
