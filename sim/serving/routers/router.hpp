#pragma once
// A router: which rank of a side's serving units takes the next request. The floor tells it a
// rank's load whenever that changes (`tell_router` in floor/floor.hpp); it chooses among the
// ranks of units that are serving. One file per router, each listed once in router_registry.cpp.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "serving/floor/rank.hpp"
#include "serving/serving_config.hpp"

namespace serving {

class Router {
 public:
  using Slot = std::pair<int, int>;         // (unit, rank)
  static constexpr double kClosed = 1e300;  // a closed rank's load: never chosen while another is open

  explicit Router(std::vector<Slot> slots) : slots_(std::move(slots)) {}
  virtual ~Router() = default;

  // Whether it keeps the ranks' loads (round-robin does not: there is nothing to tell it).
  virtual bool hears_loads() const = 0;
  // A rank's load as this router sees it, in prefill (`prefill`) or decode.
  virtual double load(const Rank& rank, bool prefill) const = 0;
  // The least pages (held and promised) at which the rank's load, as last told, changes with
  // nothing else changed: while its pages stay below, the router need not hear of it.
  virtual long long pages_told_below(const Rank& rank, bool prefill) const = 0;
  virtual void tell(int slot, double load) = 0;
  // The rank that takes the next request: its unit and its place in the unit.
  virtual Slot choose(const std::vector<Unit>& units) = 0;

 protected:
  std::vector<Slot> slots_;  // by slot (Rank::router_slot)
};

// A rank's KV use (pages held and promised) in whole sixteenths, at most 15. (In the header: the
// routers' loads read it for every rank a step changes, and a call there cost about 2% of a
// fleet's day.)
inline long long kv_sixteenths(const Rank& rank) {
  const double kv_use =
      double(rank.pages_used + rank.incoming_pages) / double(std::max<long long>(1, rank.pages_total));
  return static_cast<long long>(std::min(std::floor(kv_use * 16), 15.0));
}

// The registry (router_registry.cpp): a router by its policy, over `slots`; `pair_weight` is a
// query-key pair of prefill attention in tokens through the projections.
std::unique_ptr<Router> make_router(RouterPolicy policy, std::vector<Router::Slot> slots, double pair_weight);

}  // namespace serving
