#pragma once
// The router's choice among many DP ranks in O(log n): a tournament tree of each rank's load,
// the least loaded winning, ties going to the rank chosen longest ago (so equal ranks take turns,
// starting from the first). A deployment of hundreds of nodes has thousands of ranks and routes
// thousands of requests a second; scanning them all for each would dominate the run. Each match
// has four entrants, side by side in one cache line: a choice replays its rank's path, 6 levels
// for a fleet's 1,296 decode ranks where a tree of pairs had 11, each a line read from the cache's
// far end (BENCHMARKS.md has the figures).
#include <cstdint>
#include <vector>

namespace serving {

class LeastLoaded {
 public:
  explicit LeastLoaded(int ranks);

  // The load of `rank` is now `load` (no work when it has not changed).
  void set(int rank, double load);
  // The least loaded rank (ties: the one chosen longest ago), marked as chosen now.
  int take();

  double load(int rank) const { return unordered(node(leaf(rank)).load); }
  int size() const { return ranks_; }

 private:
  // A rank's key, and at each node a copy of the winner's, so a match reads its entrants side
  // by side (one cache line) rather than from a table by rank.
  struct Key {
    // The load as an integer in the same order (`ordered`), so that a match compares integers.
    std::uint64_t load = 0;
    // When last chosen (initially the rank's index: the first ranks first), above the rank's
    // index in the low bits: the clock breaks ties, the index names the rank.
    std::uint64_t turn = kNone;
    int rank() const { return static_cast<int>(turn & kRankMask); }
  };
  static constexpr int kRankBits = 24;
  static constexpr std::uint64_t kRankMask = (std::uint64_t{1} << kRankBits) - 1;
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};  // a leaf with no rank: loses every match
  // A load's bits, ordered as the loads are: a positive double's bits are in its order, a
  // negative's the reverse; the sign bit flipped (all bits, for a negative) puts the two in line.
  // (-0 is taken as 0, which it equals.)
  static std::uint64_t ordered(double load);
  static double unordered(std::uint64_t key);
  // Without branches: a match's winner is as likely any entrant, and a mispredicted branch at
  // each of a path's matches cost more than the matches. (Two integers compared as one of
  // 128 bits: a compare and a subtract with borrow, against seven instructions for two doubles'
  // and two integers' compares.)
  __extension__ using Wide = unsigned __int128;
  static Wide wide(const Key& x) { return Wide{x.load} << 64 | x.turn; }
  static bool less(const Key& x, const Key& y) { return wide(x) < wide(y); }
  // The lesser of x and y, chosen with masks (a compiler may branch on a choice between values).
  static Key lesser(const Key& x, const Key& y) {
    const std::uint64_t to_x = -static_cast<std::uint64_t>(less(x, y));
    return {(x.load & to_x) | (y.load & ~to_x), (x.turn & to_x) | (y.turn & ~to_x)};
  }
  static constexpr std::size_t kWays = 4;
  static_assert(kWays == 4, "replay and rise name a match's four entrants one by one");
  static std::size_t parent(std::size_t n) { return (n - 1) / kWays; }
  std::size_t leaf(int rank) const { return first_leaf_ + static_cast<std::size_t>(rank); }
  // Replays node n's match; returns whether its winner changed.
  bool replay(std::size_t n);
  void rise(std::size_t leaf);
  void replay_changed();

  int ranks_;
  std::size_t first_leaf_ = 0;
  std::uint64_t clock_;
  // The nodes: node(0) the winner, node n's entrants at kWays * n + 1 onwards, leaves from
  // first_leaf_ by rank. (Within storage_, placed so that each match's entrants share a line.)
  std::vector<Key> storage_;
  std::size_t base_ = 0;
  Key& node(std::size_t n) { return storage_[base_ + n]; }
  const Key& node(std::size_t n) const { return storage_[base_ + n]; }
  // Leaves changed since the last choice, their matches replayed only when a choice needs them:
  // a decode unit's step changes the loads of most of its ranks, which sit side by side in the
  // tree, and their paths to the root are replayed once, together, level by level, where each
  // change replayed its whole path.
  std::vector<std::uint32_t> changed_, parents_;
  std::vector<std::uint8_t> listed_;  // by node: in changed_ or parents_
};

}  // namespace serving
