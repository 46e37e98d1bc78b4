#pragma once
// Tree all-reduce (NCCL's tree algorithm, one binary tree): the buffer is cut into chunks that
// are reduced up the tree, leaves to root, then broadcast back down; chunks are pipelined, so a
// link carries chunk c + 1 while the next level works on chunk c. A chunk leaves a rank once it
// has arrived from all the rank's children (reduce) or from its parent (broadcast).
#include <vector>

#include "core/task_graph.hpp"

namespace net {

// Each tree lists its ranks in tree order: [0] is the root, the children of position i are
// 2i + 1 and 2i + 2. Several trees (one per rail) run side by side.
using Tree = std::vector<int>;
core::TaskGraph tree_allreduce_graph(const std::vector<Tree>& trees, double size_bytes, int chunks);

}  // namespace net
