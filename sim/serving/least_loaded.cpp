#include "serving/least_loaded.hpp"

#include <limits>
#include <stdexcept>

namespace serving {

LeastLoaded::LeastLoaded(int ranks) : ranks_(ranks), leaves_(1), clock_(static_cast<std::uint64_t>(ranks)) {
  if (ranks > static_cast<int>(kRankMask)) throw std::invalid_argument("a router chooses among at most 16.7 million ranks");
  while (leaves_ < ranks) leaves_ *= 2;
  tree_.assign(static_cast<std::size_t>(2 * leaves_), Key{std::numeric_limits<double>::infinity(), kNone});
  for (int i = 0; i < ranks; ++i) tree_[leaf(i)] = {0.0, static_cast<std::uint64_t>(i)};
  for (int n = leaves_ - 1; n >= 1; --n) {
    const Key& a = tree_[static_cast<std::size_t>(2 * n)];
    const Key& b = tree_[static_cast<std::size_t>(2 * n + 1)];
    tree_[static_cast<std::size_t>(n)] = less(b, a) ? b : a;
  }
}

// Replays the matches on the rank's way to the root. Where a match's winner is what it was (the
// same rank with the same key), nothing above changes.
void LeastLoaded::rise(int rank) {
  for (std::size_t n = leaf(rank) / 2; n >= 1; n /= 2) {
    const Key& winner = tree_[2 * n + static_cast<std::size_t>(less(tree_[2 * n + 1], tree_[2 * n]))];
    Key& held = tree_[n];
    if (held.turn == winner.turn && held.load == winner.load) return;
    held = winner;
  }
}

void LeastLoaded::settle() {
  if (taken_ < 0) return;
  rise(taken_);
  taken_ = -1;
}

void LeastLoaded::set(int rank, double load) {
  Key& k = tree_[leaf(rank)];
  if (k.load == load) return;
  if (rank != taken_) settle();
  k.load = load;
  taken_ = -1;
  rise(rank);
}

int LeastLoaded::take() {
  settle();
  const int best = tree_[1].rank();
  tree_[leaf(best)].turn = clock_++ << kRankBits | static_cast<std::uint64_t>(best);
  taken_ = best;
  return best;
}

}  // namespace serving
