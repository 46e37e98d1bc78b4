#include "serving/page_calendar.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace serving {

// A sequence's next boundary is at most a page of tokens ahead, ceil(page / mean) steps, and the
// ring is that long and two more: with MTP's 1.85 tokens a step, 37 buckets for pages of 64
// tokens. Most boundaries are placed a page's steps ahead, into the bucket taken two or three
// steps before, whose lines are still in the cache; in a ring of the next power of two (64) they
// went into lines left 29 steps before, and a boundary's store waited for the memory (3% of a
// fleet's time).
PageCalendar::PageCalendar(double mean_tokens, int lookahead, int page_tokens) : mean_(mean_tokens), lookahead_(lookahead), buckets_(1) {
  buckets_ = static_cast<std::size_t>(std::ceil(double(std::max(1, page_tokens)) / std::max(1.0, mean_tokens)) + 2);
}

void PageCalendar::check_ahead(long long steps) const {
  if (steps < 0 || steps >= static_cast<long long>(buckets_))
    throw std::logic_error("a page boundary " + std::to_string(steps) + " steps ahead, past the calendar's " + std::to_string(buckets_));
}

void PageCalendar::schedule(const PageBoundary& b, long long step, long long unit_step) {
  const long long need = static_cast<long long>(b.room) - lookahead_ - b.in_kv + 1;  // tokens produced by then
  const long long from = step - b.first;
  // From an estimate to the first step whose tokens reach `need` (the loops settle it exactly).
  long long j = std::max(from, mean_ == 1.0 ? need : static_cast<long long>(double(need) / mean_));
  while (produced_tokens(j, mean_) < need) ++j;
  while (j > from && produced_tokens(j - 1, mean_) >= need) --j;
  if (b.first + j > b.last) return;  // it finishes first
  const long long ahead = b.first + j - step;
  check_ahead(ahead);
  std::vector<PageBoundary>& into = bucket(unit_step + ahead);
  into.push_back(b);
  into.back().step = static_cast<int>(b.first + j);
}

// (A rank that did not step places a boundary again as many steps ahead as it was, or one.)
void PageCalendar::place(const PageBoundary& b, long long unit_step) { bucket(unit_step).push_back(b); }

void PageCalendar::take(long long unit_step, std::vector<PageBoundary>& into) {
  if (ring_.empty()) return;
  std::vector<PageBoundary>& here = bucket(unit_step);
  into.insert(into.end(), here.begin(), here.end());
  here.clear();
}

void PageCalendar::cancel(int rank, int id) {
  for (auto& bucket : ring_)
    for (std::size_t i = 0; i < bucket.size(); ++i)
      if (bucket[i].rank == rank && bucket[i].id == id) {
        bucket.erase(bucket.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
}

}  // namespace serving
