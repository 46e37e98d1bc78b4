#include "studies/config/fabric_config.hpp"

#include <algorithm>
#include <optional>

#include "core/input_error.hpp"
#include "hw/node.hpp"
#include "studies/report/report.hpp"

namespace studies {

net::Routing routing_by_name(const std::string& name) {
  return name == "ecmp"       ? net::Routing::kEcmp
         : name == "adaptive" ? net::Routing::kAdaptive
         : name == "spray"    ? net::Routing::kSpray
         : name == "static"   ? net::Routing::kStatic
                              : net::Routing::kDModK;
}

std::vector<net::Fault> read_faults(core::JsonReader& f) {
  std::vector<net::Fault> out;
  if (!f.has("faults")) return out;
  for (core::JsonReader& r : f.object_list("faults", "faults: {kind, target, at_s, for_s, bandwidth_fraction}")) {
    net::Fault fault;
    const auto& kinds = net::fault_kind_names();
    fault.kind =
        static_cast<net::FaultKind>(std::find(kinds.begin(), kinds.end(), r.one_of("kind", kinds)) - kinds.begin());
    fault.target = r.string("target");
    fault.at_s = r.non_negative_number("at_s", 0.0);
    if (r.has("for_s")) fault.for_s = r.positive_number("for_s");
    if (r.has("bandwidth_fraction")) fault.bandwidth_fraction = r.number("bandwidth_fraction");
    r.finish();
    out.push_back(fault);
  }
  return out;
}

void refuse_job_stopping_faults(const net::FabricSpec& spec, const std::string& where) {
  for (std::size_t i = 0; i < spec.faults.size(); ++i)
    if (spec.faults[i].kind == net::FaultKind::kGpu || spec.faults[i].kind == net::FaultKind::kNode)
      throw core::InputError(
          where + "faults/" + std::to_string(i) + "/kind",
          "'" + net::fault_kind_names()[static_cast<std::size_t>(spec.faults[i].kind)] +
              "' is not allowed in a flow scenario; a failed GPU or node stops the job, and the training-run study "
              "counts what that costs over a run (a slow GPU is a straggler)");
}

net::HopLatencies read_hop_latencies(core::JsonReader& h) {
  auto seconds = [&](const char* key, std::optional<double> fallback) {
    const double v = fallback ? h.non_negative_number(key, *fallback) : h.non_negative_number(key);
    if (v > 1e-3) throw core::InputError(h.pointer_of(key), format_number(v) + " is not allowed; at most 1e-3 s");
    return v;
  };
  auto metres = [&](const char* key) {
    const double v = h.non_negative_number(key, 0.0);
    if (v > 1e5) throw core::InputError(h.pointer_of(key), format_number(v) + " is not allowed; at most 100 km");
    return v;
  };
  net::HopLatencies l;
  l.endpoint_s = seconds("endpoint_latency_s", std::nullopt);
  l.switch_s = seconds("switch_latency_s", std::nullopt);
  l.propagation_s_per_m = seconds("propagation_s_per_m", l.propagation_s_per_m);
  l.endpoint_cable_m = metres("endpoint_cable_m");
  l.switch_cable_m = metres("switch_cable_m");
  return l;
}

std::string read_fabric_fields(core::JsonReader& f, net::FabricSpec& spec, bool with_nodes) {
  const std::string routing = f.one_of("routing", {"d-mod-k", "ecmp", "adaptive", "spray", "static"}, "d-mod-k");
  spec.routing = routing_by_name(routing);
  spec.sharing = f.one_of("sharing", {"max-min", "latency-weighted"}, "max-min") == "max-min"
                     ? core::Sharing::kMaxMin
                     : core::Sharing::kLatencyWeighted;
  if (routing == "static" && !with_nodes)
    throw core::InputError(f.pointer_of("routing"),
                           "'static' is not allowed on a topology graph; static route tables are for "
                           "fabrics of nodes (mpft, mrft)");
  if (routing == "spray" && !with_nodes)
    throw core::InputError(f.pointer_of("routing"),
                           "'spray' is not allowed on a topology graph; packet spraying is modelled on "
                           "fabrics of nodes (mpft, mrft), whose leaves reach every spine");
  // A named node (hw/node.cpp: h800, h100, gb200-nvl72, ...) gives the defaults for its GPUs,
  // NVLink, NICs and PCIe; the fields below override them.
  const hw::Node* node = nullptr;
  if (with_nodes && f.has("node")) {
    node = &hw::node_by_name(f.one_of("node", hw::node_names()), f.pointer_of("node"));
    spec.node = node->name;
  }
  if (with_nodes) {
    spec.nodes = static_cast<int>(f.positive_integer("nodes", 1'000'000));
    spec.gpus_per_node = static_cast<int>(f.positive_integer("gpus_per_node", node ? node->gpus : 8, 72));
    spec.radix = static_cast<int>(f.positive_integer("radix", 64, 1024));
    // Planes or rails are implied by the NICs (one per GPU); a scenario may state them, and a
    // count that disagrees is a fabric that cannot be wired.
    const bool planes = spec.kind == net::FabricKind::kMultiPlane;
    const std::string groups = planes ? "planes" : "rails";
    if (f.has(groups)) {
      const long long n = f.positive_integer(groups, 72);
      if (n != spec.gpus_per_node)
        throw core::InputError(f.pointer_of(groups),
                               std::to_string(n) + " is not allowed; a multi-" + (planes ? "plane" : "rail") +
                                   " fat tree has one " + (planes ? "plane" : "rail") +
                                   " per NIC of a node, and a node has " + std::to_string(spec.gpus_per_node) +
                                   " NICs (gpus_per_node, one per GPU)");
    }
    spec.nvlink_Bps =
        f.positive_number("nvlink_bandwidth_Bps", (node ? *node : hw::default_node()).scale_up_achieved_Bps);
    spec.nvlink_latency_s = f.non_negative_number("nvlink_latency_s", 0.0);
    spec.pcie_Bps = f.non_negative_number("pcie_bandwidth_Bps", node ? node->pcie_Bps : 0.0);
    spec.nic_ports = static_cast<int>(f.positive_integer("nic_ports", 1, 72));
    spec.table_update_s = f.non_negative_number("table_update_s", spec.table_update_s);
    spec.pxn_failover_s = f.non_negative_number("pxn_failover_s", spec.pxn_failover_s);
    spec.faults = read_faults(f);
  }
  if (const auto* table = f.raw("static_routes")) {
    if (routing != "static")
      throw core::InputError(f.pointer_of("static_routes"),
                             "is only read with \"routing\": \"static\" (routing is '" + routing + "')");
    if (!table->is_array())
      throw core::InputError(f.pointer_of("static_routes"),
                             "expected an array of {to_gpu or to_node, spine, from_leaf}");
    net::check_fabric(spec, f.pointer() + "/");  // the fabric the routes must fit (its own errors first)
    for (std::size_t i = 0; i < table->size(); ++i) {
      core::JsonReader r((*table)[i], f.pointer_of("static_routes") + "/" + std::to_string(i));
      net::StaticRoute route;
      route.spine = static_cast<int>(r.non_negative_integer("spine", 0, 1 << 20));
      route.from_leaf = r.has("from_leaf") ? static_cast<int>(r.non_negative_integer("from_leaf", 0, 1 << 20))
                                           : -1;  // -1: every leaf
      if (r.has("to_gpu") == r.has("to_node"))
        throw core::InputError(r.pointer(), "give exactly one of to_gpu (one GPU) and to_node (every GPU of a node)");
      if (r.has("to_gpu")) {
        route.dst_gpu = static_cast<int>(r.non_negative_integer("to_gpu", 0, 1 << 30));
        net::check_static_route(spec, route, r.pointer() + "/");
        spec.static_routes.push_back(route);
      } else {
        const long long node = r.non_negative_integer("to_node", 0, 1 << 30);
        if (node >= spec.nodes)
          throw core::InputError(r.pointer_of("to_node"), std::to_string(node) + " is not allowed; a node from 0 to " +
                                                              std::to_string(spec.nodes - 1));
        for (int g = 0; g < spec.gpus_per_node; ++g) {
          route.dst_gpu = static_cast<int>(node) * spec.gpus_per_node + g;
          net::check_static_route(spec, route, r.pointer() + "/");
          spec.static_routes.push_back(route);
        }
      }
      r.finish();
    }
  }
  spec.nic_Bps = f.positive_number("nic_bandwidth_Bps", (node ? *node : hw::default_node()).nic_Bps);
  spec.switch_link_Bps = f.positive_number("switch_link_bandwidth_Bps", spec.nic_Bps);
  spec.nic_latency_s = f.non_negative_number("nic_latency_s", 0.0);
  spec.switch_link_latency_s = f.non_negative_number("switch_link_latency_s", 0.0);
  // Or the latencies from the per-hop model (scenarios/paper/latency.json has its inputs).
  if (auto hops = f.optional_object("hop_latency")) {
    if (f.has("nic_latency_s") || f.has("switch_link_latency_s"))
      throw core::InputError(f.pointer_of("hop_latency"),
                             "give either hop_latency or nic_latency_s/switch_link_latency_s, not both");
    const auto links = net::link_latencies(read_hop_latencies(*hops));
    hops->finish();
    spec.nic_latency_s = links.endpoint_link_s;
    spec.switch_link_latency_s = links.switch_link_s;
  }
  return routing;
}

}  // namespace studies
