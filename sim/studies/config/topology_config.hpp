#pragma once
// A topology named in a scenario ({"kind": "ft2" | "mpft" | "ft3" | "slim-fly" | "dragonfly",
// and its parameters}), validated and built as a graph.
#include <string>

#include "core/json_reader.hpp"
#include "net/topology.hpp"

namespace studies {

struct TopologyConfig {
  std::string kind;
  std::string pointer;  // for errors raised while building
  int radix = 64, planes = 1, q = 0, p = 0, a = 0, h = 0, groups = 0;

  net::Graph build() const;
  // From the built graph where one exists; from the closed forms for a Slim Fly whose q is not
  // a prime (no MMS graph), with `note` saying so.
  net::TopologyCounts counts(std::string* note = nullptr) const;
};

std::vector<std::string> topology_kinds();
TopologyConfig parse_topology(core::JsonReader& t);  // reads kind and its parameters (not finish())

}  // namespace studies
