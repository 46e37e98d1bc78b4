#include "serving/containers/page_calendar.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace serving {

// A sequence's next boundary is at most a page of tokens ahead, ceil(page / mean) steps, and the
// ring is that long and two more: with MTP's 1.85 tokens a step, 37 buckets for pages of 64
// tokens. Most boundaries are placed a page's steps ahead, into the bucket taken two or three
// steps before, whose lines are still in the cache; in a ring of the next power of two (64) they
// would go into lines left 29 steps before, and a boundary's store would wait for the memory. Past 1,024 buckets (pages
// of over a thousand tokens) a boundary beyond the ring waits in a heap of its own.
PageCalendar::PageCalendar(double mean_tokens, int lookahead, int page_tokens)
    : mean_(mean_tokens), lookahead_(lookahead), buckets_(1) {
  const double farthest = std::ceil(double(std::max(1, page_tokens)) / std::max(1.0, mean_tokens)) + 2;
  buckets_ = static_cast<std::size_t>(std::min(1024.0, farthest));
}

// (The ring holds the steps from the one after the last taken to a ring's length past it; the
// last taken's bucket is empty by then and is the next visited at that length.)
void PageCalendar::place(const PageBoundary& b, long long unit_step) {
  if (unit_step <= taken_ + static_cast<long long>(buckets_)) {
    if (ring_.empty()) ring_.resize(buckets_);
    ring_[static_cast<std::size_t>(unit_step) % buckets_].push_back(b);
    return;
  }
  far_.push_back({unit_step, b});
  std::push_heap(far_.begin(), far_.end(), std::greater<>());
}

void PageCalendar::schedule(const PageBoundary& b, long long step, long long unit_step) {
  const long long need = static_cast<long long>(b.room) - lookahead_ - b.in_kv + 1;  // tokens produced by then
  const long long from = step - b.first;
  // From an estimate to the first step whose tokens reach `need` (the loops settle it exactly).
  long long j = std::max(from, mean_ == 1.0 ? need : static_cast<long long>(double(need) / mean_));
  while (produced_tokens(j, mean_) < need) ++j;
  while (j > from && produced_tokens(j - 1, mean_) >= need) --j;
  if (b.first + j > b.last) return;  // it finishes first
  PageBoundary placed = b;
  placed.step = static_cast<int>(b.first + j);
  place(placed, unit_step + (b.first + j - step));
}

void PageCalendar::take(long long unit_step, std::vector<PageBoundary>& into) {
  taken_ = unit_step;
  while (!far_.empty() && far_.front().unit_step <= unit_step) {
    into.push_back(far_.front().b);
    std::pop_heap(far_.begin(), far_.end(), std::greater<>());
    far_.pop_back();
  }
  if (ring_.empty()) return;
  std::vector<PageBoundary>& here = ring_[static_cast<std::size_t>(unit_step) % buckets_];
  into.insert(into.end(), here.begin(), here.end());
  here.clear();
}

void PageCalendar::cancel(int rank, int id) {
  for (std::size_t i = 0; i < far_.size(); ++i)
    if (far_[i].b.rank == rank && far_[i].b.id == id) {
      far_.erase(far_.begin() + static_cast<std::ptrdiff_t>(i));
      std::make_heap(far_.begin(), far_.end(), std::greater<>());
      return;
    }
  for (auto& bucket : ring_)
    for (std::size_t i = 0; i < bucket.size(); ++i)
      if (bucket[i].rank == rank && bucket[i].id == id) {
        bucket.erase(bucket.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
}

}  // namespace serving
