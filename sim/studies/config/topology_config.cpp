#include "studies/config/topology_config.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "studies/report/report.hpp"

namespace studies {

std::vector<std::string> topology_kinds() { return {"ft2", "mpft", "ft3", "slim-fly", "dragonfly"}; }

TopologyConfig parse_topology(core::JsonReader& t) {
  TopologyConfig c;
  c.pointer = t.pointer();
  c.kind = t.one_of("kind", topology_kinds());
  if (c.kind == "ft2" || c.kind == "mpft" || c.kind == "ft3")
    c.radix = static_cast<int>(t.positive_integer("radix", 1024));
  if (c.kind == "mpft") {
    c.planes = static_cast<int>(t.positive_integer("planes", 64));
    c.levels = static_cast<int>(t.positive_integer("levels", 2, 3));
    if (c.levels < 2)
      throw core::InputError(c.pointer + "/levels", "1 is not allowed; an MPFT's planes have 2 or 3 levels");
  }
  if (c.kind == "ft3" || c.levels == 3) c.pods = static_cast<int>(t.positive_integer("pods", c.radix, c.radix));
  if (c.kind == "slim-fly") c.q = static_cast<int>(t.positive_integer("q", 1000));
  if (c.kind == "dragonfly") {
    c.p = static_cast<int>(t.positive_integer("endpoints_per_router", 1024));
    c.a = static_cast<int>(t.positive_integer("routers_per_group", 1024));
    c.h = static_cast<int>(t.positive_integer("global_links_per_router", 1024));
    c.groups = static_cast<int>(t.positive_integer("groups", 1'000'000));
  }
  return c;
}

net::Graph TopologyConfig::build() const {
  const std::string where = pointer + "/";
  if (kind == "ft2" || (kind == "mpft" && levels == 2)) return net::fat_tree_2(radix, planes, where);
  if (kind == "ft3" || kind == "mpft") return net::fat_tree_3(radix, where, pods, planes);
  if (kind == "dragonfly") return net::dragonfly(p, a, h, groups, where);
  return net::slim_fly(q, where);
}

net::TopologyCounts TopologyConfig::counts(std::string* note) const {
  if (kind == "slim-fly") {
    try {
      return net::count(build());
    } catch (const core::InputError&) {
      if (note)
        *note = "no MMS Slim Fly graph exists for q = " + std::to_string(q) +
                " (not a prime), so its counts come from the closed forms: 2q^2 routers, network radix (3q - delta)/2, "
                "half as many endpoints per router.";
      return net::slim_fly_counts(q);
    }
  }
  return net::count(build());
}

net::TopologyCounts TopologyConfig::plane_counts() const {
  if (kind == "ft2" || (kind == "mpft" && levels == 2)) return net::fat_tree_2_counts(radix, 1);
  if (kind == "ft3" || kind == "mpft") return net::fat_tree_3_counts(radix, pods);
  if (kind == "slim-fly") return net::slim_fly_counts(q);
  return net::dragonfly_counts(p, a, h, groups);
}

void TopologyConfig::check_scale_memory(double memory_bytes) const {
  const net::TopologyCounts closed = plane_counts();
  if (const double need = net::scale_fabric_bytes(closed); need > memory_bytes) {
    auto gib = [](double bytes) { return format_number(bytes / double(1LL << 30)); };
    throw core::InputError(pointer, "would need about " + gib(need) + " GiB to build (" +
                                        std::to_string(closed.endpoints) + " endpoints, " +
                                        std::to_string(closed.switches) + " switches), more than the " +
                                        gib(memory_bytes) + " GiB allowed (memory_limit_gb)");
  }
}

net::ScaleFabric TopologyConfig::build_scale(net::ScaleRouting routing, double memory_bytes) const {
  check_scale_memory(memory_bytes);
  const std::string where = pointer + "/";
  if (kind == "ft2" || (kind == "mpft" && levels == 2)) return net::ScaleFabric::fat_tree_2(radix, routing, where);
  if (kind == "ft3" || kind == "mpft") return net::ScaleFabric::fat_tree_3(radix, routing, where, pods);
  if (kind == "slim-fly") return net::ScaleFabric::slim_fly(q, routing, where);
  return net::ScaleFabric::dragonfly(p, a, h, groups, routing, where);
}

net::ScaleRouting parse_scale_routing(core::JsonReader& t, const TopologyConfig& c) {
  const bool fat_tree = c.kind == "ft2" || c.kind == "mpft" || c.kind == "ft3";
  const std::string routing = t.one_of("routing",
                                       fat_tree ? std::vector<std::string>{"d-mod-k", "spray", "adaptive", "ecmp"}
                                                : std::vector<std::string>{"minimal", "valiant", "ugal"},
                                       fat_tree ? "d-mod-k" : "minimal");
  const auto& names = net::scale_routing_names();
  return static_cast<net::ScaleRouting>(std::find(names.begin(), names.end(), routing) - names.begin());
}

}  // namespace studies
