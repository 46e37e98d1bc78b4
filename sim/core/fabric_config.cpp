#include "core/fabric_config.hpp"

#include "core/input_error.hpp"

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
    // Planes or rails are implied by the NICs (one per GPU); a scenario may state them, and a
    // count that disagrees is a fabric that cannot be wired.
    const bool planes = spec.kind == net::FabricKind::kMultiPlane;
    const std::string groups = planes ? "planes" : "rails";
    if (f.has(groups)) {
      const long long n = f.positive_integer(groups, 72);
      if (n != spec.gpus_per_node)
        throw InputError(f.pointer_of(groups), std::to_string(n) + " is not allowed; a multi-" + (planes ? "plane" : "rail") +
                                                   " fat tree has one " + (planes ? "plane" : "rail") + " per NIC of a node, and a node has " +
                                                   std::to_string(spec.gpus_per_node) + " NICs (gpus_per_node, one per GPU)");
    }
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
