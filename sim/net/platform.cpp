#include "net/platform.hpp"

#include <simgrid/s4u.hpp>
#include <string>

namespace net {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> StarPlatform::build(const RoutePairs& routes) const {
  const Cluster& c = cluster_;
  auto* zone = sg4::create_full_zone("cluster");
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> scale_up;
  std::vector<sg4::Link*> nic;
  const int gpus = c.gpus();
  hosts.reserve(gpus);
  for (int g = 0; g < gpus; ++g) {
    const std::string id = std::to_string(g);
    hosts.push_back(zone->create_host("gpu" + id, c.gpu_flops_per_s));
    scale_up.push_back(zone->create_split_duplex_link("scaleup" + id, c.scale_up_Bps)->set_latency(c.scale_up_latency_s / 2));
    nic.push_back(zone->create_split_duplex_link("nic" + id, c.scale_out_Bps)->set_latency(c.scale_out_latency_s / 2));
  }
  using Dir = sg4::LinkInRoute::Direction;
  for (const auto& [src, dst] : routes) {
    const bool same_node = c.node_of(src) == c.node_of(dst);
    const auto& links = same_node ? scale_up : nic;
    zone->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(links[src], Dir::UP), sg4::LinkInRoute(links[dst], Dir::DOWN)}, false);
  }
  zone->seal();
  return hosts;
}

}  // namespace net
