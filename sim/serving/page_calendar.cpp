#include "serving/page_calendar.hpp"

#include <algorithm>

namespace serving {

void PageCalendar::schedule(const PageBoundary& b, long long step, long long unit_step) {
  const long long need = static_cast<long long>(b.room) - lookahead_ - b.in_kv + 1;  // tokens produced by then
  const long long from = step - b.first;
  // From an estimate to the first step whose tokens reach `need` (the loops settle it exactly).
  long long j = std::max(from, mean_ == 1.0 ? need : static_cast<long long>(double(need) / mean_));
  while (produced_tokens(j, mean_) < need) ++j;
  while (j > from && produced_tokens(j - 1, mean_) >= need) --j;
  if (b.first + j > b.last) return;  // it finishes first
  const long long at = unit_step + (b.first + j - step);
  std::vector<PageBoundary>& into = bucket(at);
  into.push_back(b);
  into.back().step = static_cast<int>(b.first + j);
  into.back().unit_step = static_cast<int>(at);
}

void PageCalendar::place(const PageBoundary& b, long long unit_step) {
  std::vector<PageBoundary>& into = bucket(unit_step);
  into.push_back(b);
  into.back().unit_step = static_cast<int>(unit_step);
}

void PageCalendar::take(long long unit_step, std::vector<PageBoundary>& into) {
  if (ring_.empty()) return;
  std::vector<PageBoundary>& here = bucket(unit_step);
  std::size_t kept = 0;  // those a lap or more ahead stay
  for (const PageBoundary& b : here) {
    if (b.unit_step <= unit_step) into.push_back(b);
    else here[kept++] = b;
  }
  here.resize(kept);
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
