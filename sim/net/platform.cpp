#include "net/platform.hpp"

namespace net {

core::Network StarPlatform::network(const RoutePairs& routes) const {
  const Cluster& c = cluster_;
  core::Network net;
  // Per GPU: scale-up out, scale-up in, NIC out, NIC in; each takes half the path's latency.
  struct Ports {
    int up_out, up_in, nic_out, nic_in;
  };
  std::vector<Ports> ports;
  for (int g = 0; g < c.gpus(); ++g)
    ports.push_back({net.add_link(c.scale_up_Bps, c.scale_up_latency_s / 2),
                     net.add_link(c.scale_up_Bps, c.scale_up_latency_s / 2),
                     net.add_link(c.scale_out_Bps, c.scale_out_latency_s / 2),
                     net.add_link(c.scale_out_Bps, c.scale_out_latency_s / 2)});
  for (const auto& [src, dst] : routes) {
    const bool same_node = c.node_of(src) == c.node_of(dst);
    net.add_route(src, dst,
                  same_node ? std::vector<int>{ports[src].up_out, ports[dst].up_in}
                            : std::vector<int>{ports[src].nic_out, ports[dst].nic_in});
  }
  return net;
}

}  // namespace net
