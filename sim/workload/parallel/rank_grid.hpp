#pragma once
// Where each parallel group's ranks sit: ranks are numbered by a mixed-radix count over the
// parallel dimensions in placement order, the first varying fastest (Megatron's "tp-cp-ep-dp-pp":
// a TP group is consecutive ranks, inside one node; PP outermost). Rank r runs on node
// r / gpus_per_node. A group of a dimension is the ranks that differ only in it, so its links are
// NVLink when its members share a node and the fabric when they do not. A dimension may fill two
// slots of the count (one name twice: e.g. DP split by PP placed inside it); its groups vary both.
#include <string>
#include <vector>

namespace workload {

struct GridDimension {
  std::string name;
  int size = 1;
};

class RankGrid {
 public:
  explicit RankGrid(std::vector<GridDimension> innermost_first);

  int ranks() const { return ranks_; }
  int size(const std::string& dim) const;  // over all its slots
  // Ranks between consecutive members of one of the dimension's groups (its innermost slot).
  int stride(const std::string& dim) const;
  // Every group of ranks that differ only in `varying`, each sorted; together they cover all ranks.
  std::vector<std::vector<int>> groups(const std::vector<std::string>& varying) const;
  // The group of `rank`: the ranks that differ from it only in `varying`, sorted.
  std::vector<int> group_of(int rank, const std::vector<std::string>& varying) const;
  // Members of one such group that share a node (a group's members are spread evenly over nodes).
  static int members_per_node(const std::vector<int>& group, int gpus_per_node);

 private:
  std::vector<std::size_t> slots(const std::string& dim) const;
  std::vector<GridDimension> dims_;
  std::vector<int> strides_;
  int ranks_ = 1;
};

}  // namespace workload
