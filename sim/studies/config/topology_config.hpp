#pragma once
// A topology named in a scenario ({"kind": "ft2" | "mpft" | "ft3" | "slim-fly" | "dragonfly",
// and its parameters}), validated and built as a graph. An ft3 may have fewer pods than its
// radix allows ("pods"), and an mpft three-level planes ("levels": 3, "pods").
#include <string>

#include "core/json_reader.hpp"
#include "net/scale/scale_fabric.hpp"
#include "net/topology.hpp"

namespace studies {

struct TopologyConfig {
  std::string kind;
  std::string pointer;  // for errors raised while building
  int radix = 64, planes = 1, q = 0, p = 0, a = 0, h = 0, groups = 0;
  int levels = 2;  // mpft: its planes' levels (3: three-level planes of `pods` pods)
  int pods = 0;    // ft3, and mpft of three levels: the pods (0: all the radix allows)

  net::Graph build() const;
  // From the built graph where one exists; from the closed forms for a Slim Fly whose q is not
  // a prime (no MMS graph), with `note` saying so.
  net::TopologyCounts counts(std::string* note = nullptr) const;

  // Its closed-form counts for a build at full size (an MPFT: one plane).
  net::TopologyCounts plane_counts() const;
  // Refused (with the figure) when its build for traffic by classes would need more than
  // `memory_bytes`, from the closed-form counts.
  void check_scale_memory(double memory_bytes) const;
  // Built as a router graph for traffic by classes (net/scale/; an MPFT: one plane), after that check.
  net::ScaleFabric build_scale(net::ScaleRouting routing, double memory_bytes) const;
};

std::vector<std::string> topology_kinds();
TopologyConfig parse_topology(core::JsonReader& t);  // reads kind and its parameters (not finish())
// Its "routing" for traffic by classes: d-mod-k (the default), spray, adaptive or ecmp on fat
// trees, minimal (the default), valiant or ugal on Slim Fly and Dragonfly.
net::ScaleRouting parse_scale_routing(core::JsonReader& t, const TopologyConfig& c);

}  // namespace studies
