#include "serving/routers/least_loaded_router.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace serving {

LeastLoadedRouter::LeastLoadedRouter(std::vector<Slot> slots, double pair_weight)
    : Router(std::move(slots)), pair_weight_(pair_weight) {
  if (!slots_.empty()) index_.emplace(static_cast<int>(slots_.size()));
}

double LeastLoadedRouter::load(const Rank& rank, bool prefill) const {
  if (prefill) return double(rank.pending_tokens) + rank.pending_pairs * pair_weight_;
  return double(rank.running() + rank.incoming.size() + rank.swapped.size() + rank.received.size()) +
         double(rank.transferring) + double(kv_sixteenths(rank)) / 16;
}

long long LeastLoadedRouter::pages_told_below(const Rank& rank, bool prefill) const {
  const long long pages = rank.pages_used + rank.incoming_pages;
  if (prefill || pages < 0) return pages + 1;
  // The next sixteenth's least pages, ceil((s + 1) pages_total / 16): the quotient of pages in
  // doubles rounds by far less than a sixteenth's least step, 1 / (16 pages_total), so it
  // reaches the sixteenth exactly there.
  const long long sixteenths = kv_sixteenths(rank);
  const long long total = std::max<long long>(1, rank.pages_total);
  return sixteenths == 15 ? std::numeric_limits<long long>::max() : ((sixteenths + 1) * total + 15) / 16;
}

std::unique_ptr<Router> make_least_loaded_router(std::vector<Router::Slot> slots, double pair_weight) {
  return std::make_unique<LeastLoadedRouter>(std::move(slots), pair_weight);
}

}  // namespace serving
