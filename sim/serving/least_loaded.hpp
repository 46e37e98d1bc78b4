#pragma once
// The router's choice among many DP ranks in O(log n): a tournament tree of each rank's load,
// the least loaded winning, ties going to the rank chosen longest ago (so equal ranks take turns,
// starting from the first). A deployment of hundreds of nodes has thousands of ranks and routes
// thousands of requests a second; scanning them all for each would dominate the run.
#include <vector>

namespace serving {

class LeastLoaded {
 public:
  explicit LeastLoaded(int ranks);

  // The load of `rank` is now `load` (no work when it has not changed).
  void set(int rank, double load);
  // The least loaded rank (ties: the one chosen longest ago), marked as chosen now.
  int take();

  double load(int rank) const { return keys_[static_cast<std::size_t>(rank)].load; }
  int size() const { return ranks_; }

 private:
  struct Key {
    double load;
    long long chosen;  // when last chosen (initially -ranks + index: the first ranks first)
  };
  bool less(int a, int b) const;
  void rise(int rank);

  int ranks_, leaves_;
  long long clock_ = 0;
  std::vector<Key> keys_;
  std::vector<int> tree_;  // tree_[1] the winner; leaves at leaves_ + rank; -1 where no rank
};

}  // namespace serving
