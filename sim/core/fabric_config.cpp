#include "core/fabric_config.hpp"

namespace core {

net::Routing routing_by_name(const std::string& name) {
  return name == "ecmp" ? net::Routing::kEcmp : name == "adaptive" ? net::Routing::kAdaptive : net::Routing::kDModK;
}

std::string read_fabric_fields(JsonReader& f, net::FabricSpec& spec, bool with_nodes) {
  const std::string routing = f.one_of("routing", {"d-mod-k", "ecmp", "adaptive"}, "d-mod-k");
  spec.routing = routing_by_name(routing);
  if (with_nodes) {
    spec.nodes = static_cast<int>(f.positive_integer("nodes", 1'000'000));
    spec.gpus_per_node = static_cast<int>(f.positive_integer("gpus_per_node", 8, 72));
    spec.radix = static_cast<int>(f.positive_integer("radix", 64, 1024));
    spec.nvlink_Bps = f.positive_number("nvlink_bandwidth_Bps", 160e9);
    spec.nvlink_latency_s = f.non_negative_number("nvlink_latency_s", 0.0);
  }
  spec.nic_Bps = f.positive_number("nic_bandwidth_Bps", 50e9);
  spec.switch_link_Bps = f.positive_number("switch_link_bandwidth_Bps", spec.nic_Bps);
  spec.nic_latency_s = f.non_negative_number("nic_latency_s", 0.0);
  spec.switch_link_latency_s = f.non_negative_number("switch_link_latency_s", 0.0);
  return routing;
}

}  // namespace core
