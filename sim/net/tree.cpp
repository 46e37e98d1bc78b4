#include "net/tree.hpp"

#include <string>

namespace net {

core::TaskGraph tree_allreduce_graph(const std::vector<Tree>& trees, double size_bytes, int chunks) {
  core::TaskGraph g;
  for (const auto& ranks : trees) {
    const int n = static_cast<int>(ranks.size());
    const double chunk_bytes = size_bytes / chunks;
    // up[c][i]: chunk c sent from position i to its parent; down[c][i]: received by i from its parent.
    std::vector<std::vector<core::TaskId>> up(chunks, std::vector<core::TaskId>(n, -1)),
        down(chunks, std::vector<core::TaskId>(n, -1));
    // Reduce: positions from the last (leaves first) to 1; each waits for its children's chunk.
    for (int c = 0; c < chunks; ++c)
      for (int i = n - 1; i >= 1; --i) {
        std::vector<core::TaskId> deps;
        for (int child : {2 * i + 1, 2 * i + 2})
          if (child < n) deps.push_back(up[c][child]);
        if (c > 0) deps.push_back(up[c - 1][i]);  // one chunk at a time on the link
        up[c][i] = g.add_transfer("reduce chunk " + std::to_string(c), ranks[i], "up",
                                  {{ranks[i], ranks[(i - 1) / 2], chunk_bytes}}, deps);
      }
    // Broadcast: the root has chunk c once its children's chunk c arrived; then down the tree.
    for (int c = 0; c < chunks; ++c)
      for (int i = 1; i < n; ++i) {
        const int parent = (i - 1) / 2;
        std::vector<core::TaskId> deps;
        if (parent == 0) {
          for (int child : {1, 2})
            if (child < n) deps.push_back(up[c][child]);
        } else {
          deps.push_back(down[c][parent]);
        }
        if (c > 0) deps.push_back(down[c - 1][i]);
        down[c][i] = g.add_transfer("broadcast chunk " + std::to_string(c), ranks[parent], "down",
                                    {{ranks[parent], ranks[i], chunk_bytes}}, deps);
      }
  }
  return g;
}

}  // namespace net
