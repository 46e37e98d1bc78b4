#pragma once
// Network cost in the manner of the Slim Fly paper's methodology: switches plus cables, priced
// per component. The prices are inputs (the scenario's "prices"), not constants in the code.
#include "net/topology.hpp"

namespace net {

struct Prices {
  double switch_usd = 0;             // one switch of the topology's radix
  double inter_switch_link_usd = 0;  // cable and the two transceivers of a switch-to-switch link
  double endpoint_link_usd = 0;      // NIC-to-switch cable
};

struct NetworkCost {
  double total_usd = 0;
  double per_endpoint_usd = 0;
};

NetworkCost network_cost(const TopologyCounts& counts, const Prices& prices);

}  // namespace net
