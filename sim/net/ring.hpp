#pragma once
// Ring all-gather and reduce-scatter (NCCL's ring algorithm) as a task graph: each ring of N
// ranks takes N - 1 steps; in each step every rank sends size / N bytes to its successor, and a
// step starts when the previous one has ended on every ring (the rings run side by side, each
// step waiting for its slowest link). Reduce-scatter moves the same bytes; its reductions are
// taken as free next to the transfers. All-reduce is the two in turn.
#include <vector>

#include "core/task_graph.hpp"

namespace net {

using Ring = std::vector<int>;  // GPU ranks in ring order

// `size_bytes`: the collective's size in nccl-tests terms (the gathered buffer per rank).
// `passes`: 1 for all-gather or reduce-scatter, 2 for all-reduce (a reduce-scatter, then an
// all-gather: 2 (N - 1) steps).
core::TaskGraph ring_graph(const std::vector<Ring>& rings, double size_bytes, int passes = 1);

// The same added to `graph`, its first step after `after`; returns the join that ends it (at
// once where no ring has two ranks).
core::TaskId append_ring(core::TaskGraph& graph, const std::vector<Ring>& rings, double size_bytes, int passes,
                         std::vector<core::TaskId> after);

}  // namespace net
