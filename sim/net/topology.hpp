#pragma once
// A cluster network as a Boost.Graph: endpoint vertices (NICs) and switch vertices joined by
// links. Builders for each topology live in their own files; counts are taken from the built
// graph, not from formulas, so that a test can hold the two against each other.
#include <boost/graph/adjacency_list.hpp>
#include <string>

namespace net {

enum class VertexKind { kEndpoint, kSwitch };

struct Vertex {
  VertexKind kind = VertexKind::kSwitch;
  int plane = 0;  // multi-plane networks: the plane the vertex belongs to
  int level = 0;  // switches: 0 leaf/edge, 1 spine/aggregation, 2 core; endpoints: 0
  int group = 0;  // dragonfly group, fat-tree pod
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex>;
using VertexId = Graph::vertex_descriptor;

struct TopologyCounts {
  long long endpoints = 0;
  long long switches = 0;
  long long inter_switch_links = 0;
  long long endpoint_links = 0;
};

TopologyCounts count(const Graph& g);

// Builders. Each throws core::InputError, naming `where` and the rule, for a topology that
// cannot exist with the given parameters.
Graph fat_tree_2(int radix, int planes, const std::string& where = "");  // planes > 1: MPFT
// Three levels: `pods` of the radix's k at most (0: all k), under all (k/2)^2 cores, each core
// with a link to each pod (its other ports free): k^2/4 endpoints a pod at full bisection;
// planes > 1: a multi-plane fat tree of three-level planes, NIC i of every node in plane i.
Graph fat_tree_3(int radix, const std::string& where = "", int pods = 0, int planes = 1);
Graph dragonfly(int endpoints_per_router, int routers_per_group, int global_links_per_router, int groups,
                const std::string& where = "");
// Slim Fly MMS graph (Besta and Hoefler 2014) for a prime q = 4w +- 1: 2q^2 routers of network
// radix (3q - delta) / 2, each with ceil(radix / 2) endpoints.
Graph slim_fly(int q, const std::string& where = "");

// Closed forms, for checking the builders and for sizes no graph exists for (a Slim Fly q that
// is not a prime power, as ISCA'25 Table 3's q = 28).
TopologyCounts fat_tree_2_counts(long long radix, long long planes);
TopologyCounts fat_tree_3_counts(long long radix, long long pods = 0, long long planes = 1);
TopologyCounts dragonfly_counts(long long p, long long a, long long h, long long groups);
TopologyCounts slim_fly_counts(long long q);

}  // namespace net
