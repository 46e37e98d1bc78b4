#include "workload/parallel/rank_grid.hpp"

#include <algorithm>
#include <stdexcept>

namespace workload {

RankGrid::RankGrid(std::vector<GridDimension> dims) : dims_(std::move(dims)) {
  for (const auto& d : dims_) {
    strides_.push_back(ranks_);
    ranks_ *= d.size;
  }
}

std::vector<std::size_t> RankGrid::slots(const std::string& dim) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i].name == dim) out.push_back(i);
  if (out.empty()) throw std::logic_error("rank grid has no dimension '" + dim + "'");
  return out;
}

int RankGrid::size(const std::string& dim) const {
  int n = 1;
  for (auto i : slots(dim)) n *= dims_[i].size;
  return n;
}

int RankGrid::stride(const std::string& dim) const { return strides_[slots(dim).front()]; }

std::vector<std::vector<int>> RankGrid::groups(const std::vector<std::string>& varying) const {
  std::vector<bool> varies(dims_.size(), false);
  for (const auto& v : varying)
    for (auto i : slots(v)) varies[i] = true;
  // Number each group by its coordinates in the fixed dimensions; ranks arrive in order.
  int n_groups = 1;
  for (std::size_t i = 0; i < dims_.size(); ++i)
    if (!varies[i]) n_groups *= dims_[i].size;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n_groups));
  for (int r = 0; r < ranks_; ++r) {
    int key = 0;
    for (std::size_t i = dims_.size(); i-- > 0;)
      if (!varies[i]) key = key * dims_[i].size + r / strides_[i] % dims_[i].size;
    out[static_cast<std::size_t>(key)].push_back(r);
  }
  return out;
}

std::vector<int> RankGrid::group_of(int rank, const std::vector<std::string>& varying) const {
  std::vector<int> members = {rank};
  for (const auto& v : varying)
    for (auto i : slots(v)) {
      const int base = -(members.front() / strides_[i] % dims_[i].size) * strides_[i];
      std::vector<int> grown;
      for (int m : members)
        for (int k = 0; k < dims_[i].size; ++k) grown.push_back(m + base + k * strides_[i]);
      members = std::move(grown);
    }
  std::sort(members.begin(), members.end());
  return members;
}

int RankGrid::members_per_node(const std::vector<int>& group, int gpus_per_node) {
  const int first_node = group.front() / gpus_per_node;
  return static_cast<int>(
      std::count_if(group.begin(), group.end(), [&](int r) { return r / gpus_per_node == first_node; }));
}

}  // namespace workload
