// KV-aware: the rank with the most free KV pages (held and promised counted as used); in
// prefill, ties broken by the prompt tokens waiting. Its load changes with any page.
#include <algorithm>

#include "serving/routers/least_loaded_router.hpp"

namespace serving {

namespace {

class KvAwareRouter : public LeastLoadedRouter {
 public:
  using LeastLoadedRouter::LeastLoadedRouter;
  double load(const Rank& rank, bool prefill) const override {
    const double kv_use =
        double(rank.pages_used + rank.incoming_pages) / double(std::max<long long>(1, rank.pages_total));
    return kv_use + (prefill ? double(rank.pending_tokens) * 1e-12 : 0.0);
  }
  long long pages_told_below(const Rank& rank, bool) const override {
    return rank.pages_used + rank.incoming_pages + 1;
  }
};

}  // namespace

std::unique_ptr<Router> make_kv_aware_router(std::vector<Router::Slot> slots, double pair_weight) {
  return std::make_unique<KvAwareRouter>(std::move(slots), pair_weight);
}

}  // namespace serving
