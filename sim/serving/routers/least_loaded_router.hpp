#pragma once
// Least-loaded, as DeepSeek's balancers do it: in prefill the work a rank has to compute (prompt
// tokens through the projections and the core attention's query-key pairs, in tokens' time); in
// decode the requests it holds, then its KV-cache use in sixteenths (it breaks ties, and a rank's
// place in the index moves less often). The ranks' loads are kept in a `LeastLoaded` index.
// The KV-aware router (kv_aware_router.cpp) keeps its index and weighs KV alone.
#include <optional>

#include "serving/containers/least_loaded.hpp"
#include "serving/routers/router.hpp"

namespace serving {

class LeastLoadedRouter : public Router {
 public:
  LeastLoadedRouter(std::vector<Slot> slots, double pair_weight);
  bool hears_loads() const override { return index_.has_value(); }
  double load(const Rank& rank, bool prefill) const override;
  long long pages_told_below(const Rank& rank, bool prefill) const override;
  void tell(int slot, double load) override { index_->set(slot, load); }
  Slot choose(const std::vector<Unit>&) override { return slots_[static_cast<std::size_t>(index_->take())]; }

 private:
  std::optional<LeastLoaded> index_;  // none where there are no ranks to choose among
  double pair_weight_;
};

}  // namespace serving
