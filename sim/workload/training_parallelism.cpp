#include "workload/training_parallelism.hpp"

namespace workload {

int TrainingParallelism::stages() const {
  if (schedule == "1f1b-interleaved") return pp * vpp;
  if (schedule == "dualpipev") return 2 * pp;
  return pp;
}

RankGrid TrainingParallelism::grid() const {
  std::vector<GridDimension> dims;
  for (const auto& name : order) {
    int size = 1;
    if (name == "tp") size = tp;
    if (name == "cp") size = cp;
    if (name == "ep") size = ep;
    if (name == "dp") size = dp / ep;
    if (name == "pp") size = pp;
    dims.push_back({name, size});
  }
  return RankGrid(dims);
}

int TrainingParallelism::members_per_node(const std::string& dim) const {
  return RankGrid::members_per_node(grid().group_of(0, {dim}), gpus_per_node);
}

std::vector<std::string> TrainingParallelism::expert_dp_dims() const {
  // Experts cut over TP hold one shard per TP rank; whole experts are copied on every TP rank.
  if (etp == 1 && tp > 1) return {"tp", "cp", "dp"};
  return {"cp", "dp"};
}

const std::vector<std::string>& placement_dimensions() {
  static const std::vector<std::string> names = {"tp", "cp", "ep", "dp", "pp"};
  return names;
}

}  // namespace workload
