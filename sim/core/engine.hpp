#pragma once
// Runs a TaskGraph on a Platform with the flow-level network model (max-min fair sharing over
// the platform's routes, plain or latency-weighted as its Network says; link latency; no TCP
// effects) and returns the Timeline. Two engines
// share that model:
//  - fluid (the default, core/fluid_engine): bundles interchangeable flows and solves the rates
//    once per instant the traffic changes; scales to whole-cluster collectives;
//  - simgrid (core/simgrid_engine): SimGrid, one Comm per flow; the reference the fluid engine
//    is tested against, and slower by orders of magnitude past a few thousand flows.
#include "core/platform.hpp"
#include "core/task_graph.hpp"
#include "core/timeline.hpp"

namespace core {

struct SimulationStats {
  double wall_s = 0;
  std::size_t tasks = 0;
  std::size_t flows = 0;
  std::size_t solves = 0;  // rate solves (fluid engine)
};

enum class EngineKind { kFluid, kSimGrid };

// The engine `simulate` uses when none is named: the fluid one unless the process chose SimGrid
// (`codesim run --engine simgrid`, to check a scenario's figures against the reference). A
// process-wide choice, like a log level: the studies that simulate need not carry it.
void set_default_engine(EngineKind engine);
EngineKind default_engine();

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats = nullptr);
Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats, EngineKind engine);

// What the two engines share. The platform's network for the GPU pairs the graph's flows use;
// throws std::logic_error when the graph names a rank the platform does not have.
Network network_of(const Platform& platform, const TaskGraph& graph);
// A progress bar's units: compute tasks and flows, each counted when it ends (flows are where
// the time goes).
double progress_units(const TaskGraph& graph);

}  // namespace core
