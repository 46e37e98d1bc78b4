#pragma once
// NCCL's double binary tree over n ranks (ncclGetBtree, ncclGetDtree): the first tree in order,
// each rank's parent found from its lowest set bit, rank 0 the root with one child; the second
// the first mirrored (rank r as n - 1 - r) for even n, shifted by one for odd n, so that a rank
// that is a leaf of one tree is an inner node of the other. An all-reduce sends half the buffer
// down each tree, reducing towards the root and broadcasting back, both pipelined in chunks: in
// the steady state every tree edge carries a flow each way at once.
#include <vector>

namespace net {

// The parent of `rank` in the first tree of `n` ranks; -1 for the root (rank 0).
inline long long binary_tree_parent(long long rank, long long n) {
  if (rank == 0) return -1;
  const long long bit = rank & -rank;
  const long long up = (rank ^ bit) | (bit << 1);
  return up < n ? up : rank ^ bit;
}

// The ranks that `rank` exchanges a flow with in each direction, both trees: its parents and
// children, appended to `out` (a rank joined to another in both trees appears twice).
inline void double_tree_neighbours(long long rank, long long n, std::vector<long long>& out) {
  const auto second = [n](long long r) { return n % 2 == 0 ? n - 1 - r : (r + 1) % n; };  // and back:
  const auto first = [n](long long r) { return n % 2 == 0 ? n - 1 - r : (r - 1 + n) % n; };
  for (int tree = 0; tree < 2; ++tree) {
    const long long r = tree == 0 ? rank : first(rank);  // its rank in the first tree's numbering
    auto name = [&](long long x) { return tree == 0 ? x : second(x); };
    if (const long long up = binary_tree_parent(r, n); up >= 0) out.push_back(name(up));
    // Children: the ranks whose parent is r, r -/+ half its lowest bit and below (the root: its one).
    for (long long low = (r == 0 ? 1LL << 62 : (r & -r)) >> 1; low > 0; low >>= 1)
      for (const long long child : {r - low, r + low})
        if (child > 0 && child < n && binary_tree_parent(child, n) == r) out.push_back(name(child));
  }
}

}  // namespace net
