#include "net/cost_model.hpp"

namespace net {

NetworkCost network_cost(const TopologyCounts& c, const Prices& p) {
  NetworkCost cost;
  cost.total_usd = static_cast<double>(c.switches) * p.switch_usd +
                   static_cast<double>(c.inter_switch_links) * p.inter_switch_link_usd +
                   static_cast<double>(c.endpoint_links) * p.endpoint_link_usd;
  cost.per_endpoint_usd = c.endpoints > 0 ? cost.total_usd / static_cast<double>(c.endpoints) : 0;
  return cost;
}

}  // namespace net
