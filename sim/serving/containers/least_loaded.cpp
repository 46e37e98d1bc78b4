#include "serving/containers/least_loaded.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace serving {

LeastLoaded::LeastLoaded(int ranks) : ranks_(ranks), clock_(static_cast<std::uint64_t>(ranks)) {
  if (ranks > static_cast<int>(kRankMask))
    throw std::invalid_argument("a router chooses among at most 16.7 million ranks");
  std::size_t leaves = 1;
  while (leaves < static_cast<std::size_t>(ranks)) {
    first_leaf_ += leaves;
    leaves *= kWays;
  }
  const std::size_t nodes = first_leaf_ + leaves;
  // Node 1, the first of a match's entrants, on a line's start (the storage's start is 16-byte aligned).
  storage_.assign(nodes + 4, Key{ordered(std::numeric_limits<double>::infinity()), kNone});
  const auto at = reinterpret_cast<std::uintptr_t>(storage_.data() + 1);
  base_ = (64 - at % 64) % 64 / sizeof(Key);
  listed_.assign(nodes, 0);
  for (int i = 0; i < ranks; ++i) node(leaf(i)) = {ordered(0.0), static_cast<std::uint64_t>(i)};
  for (std::size_t n = first_leaf_; n-- > 0;) replay(n);
}

std::uint64_t LeastLoaded::ordered(double load) {
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  const auto bits = std::bit_cast<std::uint64_t>(load + 0.0);  // (-0 + 0 is 0)
  return bits & sign ? ~bits : bits | sign;
}

double LeastLoaded::unordered(std::uint64_t key) {
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  return std::bit_cast<double>(key & sign ? key & ~sign : ~key);
}

bool LeastLoaded::replay(std::size_t n) {
  const Key* e = &node(kWays * n + 1);
  // (Without branches: the lesser of each pair, then of the two.)
  const std::size_t a = less(e[1], e[0]), b = 2 + static_cast<std::size_t>(less(e[3], e[2]));
  const Key& winner = e[less(e[b], e[a]) ? b : a];
  Key& held = node(n);
  if (held.turn == winner.turn && held.load == winner.load) return false;
  held = winner;
  return true;
}

// The matches on one leaf's way to the root. Where a match's winner is what it was (the same
// rank with the same key), nothing above changes. The key that rises is carried, and each match
// reads only its other entrants: their places are known from the leaf's, so the memory is asked
// for every level's at once, and a level waits for the one below only to compare. (Reading back
// the winner just stored would make each level wait for the store.)
void LeastLoaded::rise(std::size_t n) {
  Key carried = node(n);
  while (n > 0) {
    const std::size_t p = parent(n);
    const std::size_t first = kWays * p + 1, at = n - first;
    const Key* e = &node(first);
    // (Without branches: the lesser of two of the others, then the rising key against the third
    // and against that.)
    const std::size_t x = (at + 1) % kWays, y = (at + 2) % kWays, z = (at + 3) % kWays;
    const Key yz = lesser(e[z], e[y]);
    carried = lesser(e[x], carried);
    carried = lesser(yz, carried);
    Key& held = node(p);
    if (held.turn == carried.turn && held.load == carried.load) return;
    held = carried;
    n = p;
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
      if (n == 0) continue;
      const std::uint32_t p = static_cast<std::uint32_t>(parent(n));
      if (!listed_[p]) {
        listed_[p] = 1;
        parents_.push_back(p);
      }
    }
    changed_.clear();
    for (const std::uint32_t p : parents_)
      if (replay(p))
        changed_.push_back(p);
      else
        listed_[p] = 0;
  }
}

void LeastLoaded::set(int rank, double load) {
  const std::size_t n = leaf(rank);
  Key& k = node(n);
  const std::uint64_t key = ordered(load);
  if (k.load == key) return;
  k.load = key;
  if (!listed_[n]) {
    listed_[n] = 1;
    changed_.push_back(static_cast<std::uint32_t>(n));
  }
}

int LeastLoaded::take() {
  replay_changed();
  const int best = node(0).rank();
  const std::size_t n = leaf(best);
  node(n).turn = clock_++ << kRankBits | static_cast<std::uint64_t>(best);
  listed_[n] = 1;  // (its matches replayed at the next choice, with its new load if it comes first)
  changed_.push_back(static_cast<std::uint32_t>(n));
  return best;
}

}  // namespace serving
