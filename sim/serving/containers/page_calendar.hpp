#pragma once
// A unit's page boundaries by step: for each decoding sequence, the next step at which its context
// and the step's tokens pass the pages it holds, in a ring of buckets by the unit's count of steps.
// A unit steps its DP ranks together (144 in a DeepSeek-V3 decode unit) and a sequence passes a
// page about once in 35 steps, so a step has a few dozen boundaries across the unit. Here they
// are read in order from one bucket, each with what finding its next needs; kept with each rank's
// sequences they would be read from a hundred ranks' arrays and records that the other units'
// steps evict from the cache.
#include <vector>

namespace serving {

// The tokens `steps` steps give a sequence at a step's mean tokens `mean`: exactly `steps`
// without MTP (mean 1), else the mean's share, rounded down.
inline long long produced_tokens(long long steps, double mean) {
  return mean == 1.0 ? steps : static_cast<long long>(double(steps) * mean);
}

// The tokens of the whole pages of `page_tokens` that hold `tokens`: a sequence's room, past
// which it takes pages again.
inline long long page_room(long long tokens, int page_tokens) {
  return (tokens + page_tokens - 1) / page_tokens * page_tokens;
}

// Steps are counted in 32 bits (32 bytes a boundary, two to a cache line): 2 billion steps of a
// unit are two years at 30 a second.
struct PageBoundary {
  int rank = 0;             // the DP rank in the unit
  int id = 0;               // the request (-1: gone)
  int in_kv = 0;            // tokens in its KV cache when it joined
  int room = 0;             // tokens its pages hold until the boundary
  int pages = 0;            // the pages they are
  int first = 0, last = 0;  // its first and last steps, in its rank's count of steps
  int step = 0;             // the rank's step at which its tokens pass `room`
};

class PageCalendar {
 public:
  // `mean_tokens`: a step's mean tokens per sequence; `lookahead`: the tokens a step computes for
  // each, for which it needs room before the step; `page_tokens`: the tokens of a page.
  PageCalendar(double mean_tokens = 1, int lookahead = 1, int page_tokens = 64);

  // The sequence's tokens in its KV cache at its rank's step `step`.
  long long tokens(const PageBoundary& b, long long step) const {
    return b.in_kv + produced_tokens(step - b.first, mean_);
  }

  // Places the sequence's next boundary at its rank's step `step` or after, if one comes by its
  // last step; `unit_step` is the unit's count at the rank's `step`.
  void schedule(const PageBoundary& b, long long step, long long unit_step);
  // Places `b` at the unit's `unit_step` as it is (a rank that did not step when it came): in its
  // bucket where the ring reaches it, else among the far.
  void place(const PageBoundary& b, long long unit_step);

  // Those placed at the unit's `unit_step` leave the calendar for the end of `into`.
  void take(long long unit_step, std::vector<PageBoundary>& into);
  // The request `id` on `rank` leaves: its next boundary, if it has one, goes.
  void cancel(int rank, int id);

 private:
  double mean_;
  int lookahead_;
  std::size_t buckets_;                          // past the farthest boundary, up to 1,024
  std::vector<std::vector<PageBoundary>> ring_;  // empty until the first boundary
  long long taken_ = -1;                         // the unit's step last taken
  // Boundaries past the ring (pages of over a thousand tokens), a heap by the unit's step.
  struct Far {
    long long unit_step;
    PageBoundary b;
    bool operator>(const Far& o) const { return unit_step > o.unit_step; }
  };
  std::vector<Far> far_;
};

}  // namespace serving
