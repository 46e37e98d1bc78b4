#include "serving/least_loaded.hpp"

#include <limits>
#include <stdexcept>
#include <utility>

namespace serving {

LeastLoaded::LeastLoaded(int ranks) : ranks_(ranks), leaves_(1), clock_(static_cast<std::uint64_t>(ranks)) {
  if (ranks > static_cast<int>(kRankMask)) throw std::invalid_argument("a router chooses among at most 16.7 million ranks");
  while (leaves_ < ranks) leaves_ *= 2;
  tree_.assign(static_cast<std::size_t>(2 * leaves_), Key{std::numeric_limits<double>::infinity(), kNone});
  listed_.assign(tree_.size(), 0);
  for (int i = 0; i < ranks; ++i) tree_[leaf(i)] = {0.0, static_cast<std::uint64_t>(i)};
  for (int n = leaves_ - 1; n >= 1; --n) replay(static_cast<std::size_t>(n));
}

bool LeastLoaded::replay(std::size_t n) {
  const Key& winner = tree_[2 * n + static_cast<std::size_t>(less(tree_[2 * n + 1], tree_[2 * n]))];
  Key& held = tree_[n];
  if (held.turn == winner.turn && held.load == winner.load) return false;
  held = winner;
  return true;
}

// The matches on one leaf's way to the root. Where a match's winner is what it was (the same
// rank with the same key), nothing above changes.
void LeastLoaded::rise(std::size_t n) {
  for (n /= 2; n >= 1 && replay(n); n /= 2) {
  }
}

// The changed leaves' matches, a level at a time: a node shared by several paths is replayed
// once, and only where one of its entrants changed. (Every leaf is at the same depth.)
void LeastLoaded::replay_changed() {
  if (changed_.size() == 1) {  // (most choices follow a single change: the chosen rank's)
    listed_[changed_[0]] = 0;
    rise(changed_[0]);
    changed_.clear();
    return;
  }
  while (!changed_.empty()) {
    parents_.clear();
    for (const std::uint32_t n : changed_) {
      listed_[n] = 0;
      const std::uint32_t p = n / 2;
      if (p >= 1 && !listed_[p]) {
        listed_[p] = 1;
        parents_.push_back(p);
      }
    }
    changed_.clear();
    for (const std::uint32_t p : parents_)
      if (replay(p)) changed_.push_back(p);
      else listed_[p] = 0;
  }
}

void LeastLoaded::set(int rank, double load) {
  const std::size_t n = leaf(rank);
  Key& k = tree_[n];
  if (k.load == load) return;
  k.load = load;
  if (!listed_[n]) {
    listed_[n] = 1;
    changed_.push_back(static_cast<std::uint32_t>(n));
  }
}

int LeastLoaded::take() {
  replay_changed();
  const int best = tree_[1].rank();
  const std::size_t n = leaf(best);
  tree_[n].turn = clock_++ << kRankBits | static_cast<std::uint64_t>(best);
  listed_[n] = 1;  // (its matches replayed at the next choice, with its new load if it comes first)
  changed_.push_back(static_cast<std::uint32_t>(n));
  return best;
}

}  // namespace serving
