#pragma once
// Ring all-gather and reduce-scatter (NCCL's ring algorithm) as a task graph: each ring of N
// ranks takes N - 1 steps; in each step every rank sends size / N bytes to its successor, and a
// step starts when the previous one has ended on every ring (the rings run side by side, each
// step waiting for its slowest link). Reduce-scatter moves the same bytes; its reductions are
// taken as free next to the transfers.
#include <vector>

#include "core/task_graph.hpp"

namespace net {

using Ring = std::vector<int>;  // GPU ranks in ring order

// `size_bytes`: the collective's size in nccl-tests terms (the gathered buffer per rank).
core::TaskGraph ring_graph(const std::vector<Ring>& rings, double size_bytes);

}  // namespace net
