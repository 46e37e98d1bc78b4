#include "core/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

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

Network network_of(const Platform& platform, const TaskGraph& graph) {
  if (graph.max_rank() >= platform.gpus())
    throw std::logic_error("task graph uses rank " + std::to_string(graph.max_rank()) + " but the cluster has " +
                           std::to_string(platform.gpus()) + " GPUs");
  RoutePairs pairs;
  std::size_t entries = 0;
  for (const auto& t : graph.tasks()) entries += t.flows.size();
  pairs.reserve(entries);
  for (const auto& t : graph.tasks())
    for (const auto& f : t.flows) pairs.push_back({f.src_rank, f.dst_rank});
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return platform.network(pairs);
}

double progress_units(const TaskGraph& graph) {
  double units = 0;
  for (const auto& t : graph.tasks()) units += t.kind == TaskKind::kTransfer ? double(t.flows.size()) : 1.0;
  return units;
}

Timeline simulate(const Platform& platform, const TaskGraph& graph, SimulationStats* stats, EngineKind engine) {
  return engine == EngineKind::kSimGrid ? simulate_simgrid(platform, graph, stats)
                                        : simulate_fluid(platform, graph, stats);
}

}  // namespace core
