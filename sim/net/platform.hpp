#pragma once
// Builds the SimGrid platform of a Cluster: one host per GPU; every GPU has a split-duplex
// scale-up link to its node's switch and a split-duplex NIC link to the fabric. A route inside
// a node is [scale-up of src (up), scale-up of dst (down)]; between nodes it is [NIC of src (up),
// NIC of dst (down)]. Each link carries half of the path's end-to-end latency.
// Must be called inside a live simgrid::s4u::Engine, before it runs.
#include <set>
#include <utility>
#include <vector>

#include "net/cluster.hpp"

namespace simgrid::s4u {
class Host;
}

namespace net {

// Only the (src, dst) rank pairs in `routes` get a route: a full route table would be
// quadratic in the GPUs.
std::vector<simgrid::s4u::Host*> build_platform(const Cluster& cluster, const std::set<std::pair<int, int>>& routes);

}  // namespace net
