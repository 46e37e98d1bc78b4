#pragma once
// The router's choice among many DP ranks in O(log n): a tournament tree of each rank's load,
// the least loaded winning, ties going to the rank chosen longest ago (so equal ranks take turns,
// starting from the first). A deployment of hundreds of nodes has thousands of ranks and routes
// thousands of requests a second; scanning them all for each would dominate the run.
#include <cstdint>
#include <vector>

namespace serving {

class LeastLoaded {
 public:
  explicit LeastLoaded(int ranks);

  // The load of `rank` is now `load` (no work when it has not changed).
  void set(int rank, double load);
  // The least loaded rank (ties: the one chosen longest ago), marked as chosen now. (Its matches
  // are replayed at the next call, once with its new load where that is the next: a router's
  // choice is followed by the chosen rank's load.)
  int take();

  double load(int rank) const { return tree_[leaf(rank)].load; }
  int size() const { return ranks_; }

 private:
  // A rank's key, and at each node a copy of the winner's, so a match reads its two entrants
  // side by side (one cache line) rather than from a table by rank.
  struct Key {
    double load = 0;
    // When last chosen (initially the rank's index: the first ranks first), above the rank's
    // index in the low bits: the clock breaks ties, the index names the rank.
    std::uint64_t turn = kNone;
    int rank() const { return static_cast<int>(turn & kRankMask); }
  };
  static constexpr int kRankBits = 24;
  static constexpr std::uint64_t kRankMask = (std::uint64_t{1} << kRankBits) - 1;
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};  // a leaf with no rank: loses every match
  // Without branches: a match's winner is as likely either entrant, and a mispredicted branch at
  // each of a path's dozen matches cost more than the matches.
  static bool less(const Key& x, const Key& y) { return (x.load < y.load) | ((x.load == y.load) & (x.turn < y.turn)); }
  std::size_t leaf(int rank) const { return static_cast<std::size_t>(leaves_ + rank); }
  void rise(int rank);
  void settle();  // the matches of the rank last taken, where still pending

  int ranks_, leaves_;
  int taken_ = -1;  // the rank last taken, its matches not yet replayed
  std::uint64_t clock_;
  std::vector<Key> tree_;  // tree_[1] the winner; leaves at leaves_ + rank
};

}  // namespace serving
