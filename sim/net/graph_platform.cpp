#include "net/graph_platform.hpp"

#include <stdexcept>

#include "net/flow_hash.hpp"

namespace net {

GraphPlatform::GraphPlatform(Graph graph, GraphLinks links, Routing routing)
    : graph_(std::move(graph)), links_(links), routing_(routing) {
  for (auto [v, end] = boost::vertices(graph_); v != end; ++v)
    if (graph_[*v].kind == VertexKind::kEndpoint) endpoints_.push_back(*v);
}

const std::vector<int>& GraphPlatform::distances_to(VertexId target) const {
  auto it = distances_.find(target);
  if (it != distances_.end()) return it->second;
  std::vector<int> d(boost::num_vertices(graph_), -1);
  std::vector<VertexId> queue = {target};
  d[target] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const VertexId u = queue[head];
    for (auto [a, end] = boost::adjacent_vertices(u, graph_); a != end; ++a)
      // Every vertex gets its distance, but only switches pass it on: an endpoint is never a
      // transit hop.
      if (d[*a] < 0) {
        d[*a] = d[u] + 1;
        if (graph_[*a].kind == VertexKind::kSwitch) queue.push_back(*a);
      }
  }
  return distances_.emplace(target, std::move(d)).first->second;
}

std::vector<VertexId> GraphPlatform::route(int src, int dst) const {
  const VertexId from = endpoints_.at(src), to = endpoints_.at(dst);
  const auto& d = distances_to(to);
  std::vector<VertexId> path = {from};
  VertexId at = from;
  int hop = 0;
  while (at != to) {
    std::vector<VertexId> next;
    for (auto [a, end] = boost::adjacent_vertices(at, graph_); a != end; ++a)
      if (d[*a] >= 0 && d[*a] == d[at] - 1 && (graph_[*a].kind == VertexKind::kSwitch || *a == to)) next.push_back(*a);
    if (next.empty())
      throw std::logic_error("no path from GPU " + std::to_string(src) + " to GPU " + std::to_string(dst));
    std::sort(next.begin(), next.end());
    VertexId choice = next[0];
    if (routing_ == Routing::kDModK) {
      choice = next[static_cast<std::size_t>(dst) % next.size()];
    } else if (routing_ == Routing::kEcmp) {
      const std::uint64_t x = flow_hash((static_cast<std::uint64_t>(src) << 40) ^
                                        (static_cast<std::uint64_t>(dst) << 8) ^ static_cast<std::uint64_t>(hop));
      choice = next[x % next.size()];
    } else {
      int best = -1;
      for (VertexId n : next) {
        const int use = link_use_[{at, n}];
        if (best < 0 || use < best) {
          best = use;
          choice = n;
        }
      }
      ++link_use_[{at, choice}];
    }
    path.push_back(choice);
    at = choice;
    ++hop;
  }
  return path;
}

core::Network GraphPlatform::network(const RoutePairs& pairs) const {
  core::Network net;
  net.set_sharing(links_.sharing);
  // One link per direction of each graph edge the routes use.
  std::map<std::pair<VertexId, VertexId>, int> links;
  auto link = [&](VertexId u, VertexId v) {
    auto it = links.find({u, v});
    if (it != links.end()) return it->second;
    const bool endpoint = graph_[u].kind == VertexKind::kEndpoint || graph_[v].kind == VertexKind::kEndpoint;
    const int id = endpoint ? net.add_link(links_.endpoint_Bps, links_.endpoint_latency_s)
                            : net.add_link(links_.switch_Bps, links_.switch_latency_s);
    return links.emplace(std::make_pair(u, v), id).first->second;
  };
  for (const auto& [src, dst] : pairs) {
    const auto path = route(src, dst);
    std::vector<int> hops;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) hops.push_back(link(path[i], path[i + 1]));
    net.add_route(src, dst, hops);
  }
  return net;
}

}  // namespace net
