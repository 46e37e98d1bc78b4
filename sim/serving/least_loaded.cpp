#include "serving/least_loaded.hpp"

namespace serving {

LeastLoaded::LeastLoaded(int ranks) : ranks_(ranks), leaves_(1) {
  while (leaves_ < ranks) leaves_ *= 2;
  keys_.resize(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) keys_[static_cast<std::size_t>(i)] = {0.0, static_cast<long long>(i) - ranks};
  tree_.assign(static_cast<std::size_t>(2 * leaves_), -1);
  for (int i = 0; i < ranks; ++i) tree_[static_cast<std::size_t>(leaves_ + i)] = i;
  for (int n = leaves_ - 1; n >= 1; --n) {
    const int a = tree_[static_cast<std::size_t>(2 * n)], b = tree_[static_cast<std::size_t>(2 * n + 1)];
    tree_[static_cast<std::size_t>(n)] = b < 0 || (a >= 0 && less(a, b)) ? a : b;
  }
}

bool LeastLoaded::less(int a, int b) const {
  const Key& x = keys_[static_cast<std::size_t>(a)];
  const Key& y = keys_[static_cast<std::size_t>(b)];
  return x.load < y.load || (x.load == y.load && x.chosen < y.chosen);
}

// Replays the matches on the rank's way to the root. Where another rank wins as it did before,
// nothing above changes: the rank's key takes part there only through that winner.
void LeastLoaded::rise(int rank) {
  for (int n = (leaves_ + rank) / 2; n >= 1; n /= 2) {
    const int a = tree_[static_cast<std::size_t>(2 * n)], b = tree_[static_cast<std::size_t>(2 * n + 1)];
    const int winner = b < 0 || (a >= 0 && less(a, b)) ? a : b;
    int& held = tree_[static_cast<std::size_t>(n)];
    if (held == winner && winner != rank) return;
    held = winner;
  }
}

void LeastLoaded::set(int rank, double load) {
  Key& k = keys_[static_cast<std::size_t>(rank)];
  if (k.load == load) return;
  k.load = load;
  rise(rank);
}

int LeastLoaded::take() {
  const int best = tree_[1];
  keys_[static_cast<std::size_t>(best)].chosen = clock_++;
  rise(best);
  return best;
}

}  // namespace serving
