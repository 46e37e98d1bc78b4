#include "net/topology.hpp"

namespace net {

TopologyCounts count(const Graph& g) {
  TopologyCounts c;
  for (auto [v, end] = boost::vertices(g); v != end; ++v)
    (g[*v].kind == VertexKind::kEndpoint ? c.endpoints : c.switches) += 1;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const bool endpoint =
        g[boost::source(*e, g)].kind == VertexKind::kEndpoint || g[boost::target(*e, g)].kind == VertexKind::kEndpoint;
    (endpoint ? c.endpoint_links : c.inter_switch_links) += 1;
  }
  return c;
}

}  // namespace net

namespace net {

TopologyCounts fat_tree_2_counts(long long k, long long planes) {
  return {planes * k * k / 2, planes * 3 * k / 2, planes * k * k / 2, planes * k * k / 2};
}

TopologyCounts fat_tree_3_counts(long long k, long long pods, long long planes) {
  const long long n = pods > 0 ? pods : k;
  return {planes * n * k * k / 4, planes * (k * k / 4 + n * k), planes * n * k * k / 2, planes * n * k * k / 4};
}

TopologyCounts dragonfly_counts(long long p, long long a, long long h, long long groups) {
  return {groups * a * p, groups * a, groups * a * (a - 1) / 2 + groups * a * h / 2, groups * a * p};
}

}  // namespace net
