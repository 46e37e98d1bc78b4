#include "workload/rank_grid.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace workload {

RankGrid::RankGrid(std::vector<GridDimension> dims) : dims_(std::move(dims)) {
  for (const auto& d : dims_) {
    strides_.push_back(ranks_);
    ranks_ *= d.size;
  }
}

int RankGrid::index(const std::string& dim) const {
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i].name == dim) return static_cast<int>(i);
  throw std::logic_error("rank grid has no dimension '" + dim + "'");
}

int RankGrid::size(const std::string& dim) const { return dims_[static_cast<std::size_t>(index(dim))].size; }
int RankGrid::stride(const std::string& dim) const { return strides_[static_cast<std::size_t>(index(dim))]; }

std::vector<std::vector<int>> RankGrid::groups(const std::vector<std::string>& varying) const {
  std::vector<bool> varies(dims_.size(), false);
  for (const auto& v : varying) varies[static_cast<std::size_t>(index(v))] = true;
  // Key each rank by its coordinates in the fixed dimensions.
  std::map<std::vector<int>, std::vector<int>> by_key;
  for (int r = 0; r < ranks_; ++r) {
    std::vector<int> key;
    for (std::size_t i = 0; i < dims_.size(); ++i)
      if (!varies[i]) key.push_back(r / strides_[i] % dims_[i].size);
    by_key[key].push_back(r);
  }
  std::vector<std::vector<int>> out;
  for (auto& [key, members] : by_key) out.push_back(std::move(members));
  return out;
}

int RankGrid::members_per_node(const std::vector<int>& group, int gpus_per_node) {
  const int first_node = group.front() / gpus_per_node;
  return static_cast<int>(std::count_if(group.begin(), group.end(), [&](int r) { return r / gpus_per_node == first_node; }));
}

}  // namespace workload
