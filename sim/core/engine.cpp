#include "core/engine.hpp"

#include "core/fluid_engine.hpp"
#include "core/simgrid_engine.hpp"

namespace core {

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats, EngineKind engine) {
  return engine == EngineKind::kSimGrid ? simulate_simgrid(platform, graph, stats) : simulate_fluid(platform, graph, stats);
}

}  // namespace core
