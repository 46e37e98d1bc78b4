// Canonical dragonfly (Kim et al. 2008): groups of a routers, fully connected inside the group;
// each router serves p endpoints and has h global links to other groups. Global links are laid
// round-robin: in round d every group links to the group d further on, so each pair of groups
// is joined before any pair is joined twice; every global port is used.
#include <string>

#include "core/input_error.hpp"
#include "net/topology.hpp"

namespace net {

Graph dragonfly(int p, int a, int h, int groups, const std::string& where) {
  auto refuse = [&](const std::string& field, long long value, const std::string& rule) {
    throw core::InputError(where + field, std::to_string(value) + " is not allowed; " + rule);
  };
  if (p < 1 || p > 1024) refuse("endpoints_per_router", p, "from 1 to 1024");
  if (a < 1 || a > 1024) refuse("routers_per_group", a, "from 1 to 1024");
  if (h < 1 || h > 1024) refuse("global_links_per_router", h, "from 1 to 1024");
  if (groups < 2 || groups > a * h + 1)
    refuse("groups", groups,
           "from 2 to a x h + 1 = " + std::to_string(a * h + 1) + " (every group needs a global link to every other)");
  if ((static_cast<long long>(a) * h) % 2 != 0 && groups % 2 != 0)
    refuse("global_links_per_router", h, "a x h global ports per group must pair up: make a x h or the groups even");
  Graph g;
  std::vector<std::vector<VertexId>> routers(groups);
  for (int grp = 0; grp < groups; ++grp)
    for (int r = 0; r < a; ++r) {
      const VertexId router = boost::add_vertex(Vertex{VertexKind::kSwitch, 0, 0, grp}, g);
      for (VertexId other : routers[grp]) boost::add_edge(router, other, g);
      routers[grp].push_back(router);
      for (int e = 0; e < p; ++e)
        boost::add_edge(boost::add_vertex(Vertex{VertexKind::kEndpoint, 0, 0, grp}, g), router, g);
    }
  // Next free global port of each group: router (port / h).
  std::vector<int> next_port(groups, 0);
  const int ports = a * h;
  const long long links = static_cast<long long>(groups) * ports / 2;
  long long made = 0;
  int idle_rounds = 0;  // rounds in a row that placed no link: a full cycle of them means stuck
  for (int d = 1; made < links; d = d % (groups - 1) + 1) {
    const long long before = made;
    for (int grp = 0; grp < groups && made < links; ++grp) {
      const int other = (grp + d) % groups;
      if (next_port[grp] >= ports || next_port[other] >= ports) continue;
      boost::add_edge(routers[grp][next_port[grp]++ / h], routers[other][next_port[other]++ / h], g);
      ++made;
    }
    idle_rounds = made == before ? idle_rounds + 1 : 0;
    if (idle_rounds >= groups - 1)
      refuse("groups", groups, "the global ports cannot all be paired between distinct groups");
  }
  return g;
}

}  // namespace net
