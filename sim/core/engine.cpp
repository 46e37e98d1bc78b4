#include "core/engine.hpp"

#include "core/fluid_engine.hpp"
#include "core/simgrid_engine.hpp"

namespace core {

namespace {
EngineKind chosen_engine = EngineKind::kFluid;
}

void set_default_engine(EngineKind engine) { chosen_engine = engine; }
EngineKind default_engine() { return chosen_engine; }

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats) {
  return simulate(platform, graph, stats, chosen_engine);
}

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats, EngineKind engine) {
  return engine == EngineKind::kSimGrid ? simulate_simgrid(platform, graph, stats) : simulate_fluid(platform, graph, stats);
}

}  // namespace core
