// Every router, one line each: a new router is its file and a line here.
#include <array>

#include "serving/routers/router.hpp"

namespace serving {

std::unique_ptr<Router> make_round_robin_router(std::vector<Router::Slot> slots, double pair_weight);
std::unique_ptr<Router> make_least_loaded_router(std::vector<Router::Slot> slots, double pair_weight);
std::unique_ptr<Router> make_kv_aware_router(std::vector<Router::Slot> slots, double pair_weight);

namespace {

struct RouterKind {
  RouterPolicy policy;
  const char* name;
  std::unique_ptr<Router> (*make)(std::vector<Router::Slot>, double);
};

constexpr std::array kRouters{
    RouterKind{RouterPolicy::kRoundRobin, "round-robin", make_round_robin_router},
    RouterKind{RouterPolicy::kLeastLoaded, "least-loaded", make_least_loaded_router},
    RouterKind{RouterPolicy::kKvAware, "kv-aware", make_kv_aware_router},
};

}  // namespace

std::unique_ptr<Router> make_router(RouterPolicy policy, std::vector<Router::Slot> slots, double pair_weight) {
  for (const RouterKind& kind : kRouters)
    if (kind.policy == policy) return kind.make(std::move(slots), pair_weight);
  return make_least_loaded_router(std::move(slots), pair_weight);
}

bool router_policy_named(const std::string& name, RouterPolicy& policy) {
  for (const RouterKind& kind : kRouters)
    if (name == kind.name) {
      policy = kind.policy;
      return true;
    }
  return false;
}

std::vector<std::string> router_names() {
  std::vector<std::string> names;
  for (const RouterKind& kind : kRouters) names.emplace_back(kind.name);
  return names;
}

}  // namespace serving
