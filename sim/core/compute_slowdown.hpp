#pragma once
// GPUs that compute slower than the rest (stragglers: a throttled clock, a bad HBM stack, a
// noisy neighbour on the host), each from an instant on. A compute task on such a GPU lasts its
// time up to that instant and `factor` times as long after it; transfers are the network's.
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

struct ComputeSlowdown {
  int rank = 0;
  double factor = 1;  // >= 1: 1.1 computes in 1.1x the time, 10% slower
  double from_s = 0;
};

class ComputeSlowdowns {
 public:
  // One slowdown per rank.
  void add(const ComputeSlowdown& s) {
    if (!(s.factor >= 1) || !(s.from_s >= 0))
      throw std::logic_error("a compute slowdown needs factor >= 1 and from_s >= 0");
    if (!by_rank_.emplace(s.rank, s).second)
      throw std::logic_error("rank " + std::to_string(s.rank) + " has two compute slowdowns");
    all_.push_back(s);
  }
  bool empty() const { return all_.empty(); }
  const std::vector<ComputeSlowdown>& all() const { return all_; }

  // When a compute task of `seconds` that starts at `start_s` on `rank` ends.
  double end_s(int rank, double start_s, double seconds) const {
    if (all_.empty()) return start_s + seconds;
    const auto it = by_rank_.find(rank);
    if (it == by_rank_.end()) return start_s + seconds;
    const ComputeSlowdown& s = it->second;
    if (start_s + seconds <= s.from_s) return start_s + seconds;
    if (start_s >= s.from_s) return start_s + seconds * s.factor;
    return s.from_s + (start_s + seconds - s.from_s) * s.factor;  // slowed partway
  }

 private:
  std::vector<ComputeSlowdown> all_;
  std::unordered_map<int, ComputeSlowdown> by_rank_;
};

}  // namespace core
