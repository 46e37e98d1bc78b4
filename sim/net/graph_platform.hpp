#pragma once
// Any topology graph (fat trees, Slim Fly, Dragonfly) as a SimGrid platform: one GPU per
// endpoint, a split-duplex link per graph edge, and minimal routes chosen among the equal-cost
// next hops by the routing policy (d-mod-k: by destination; ECMP: a hash of the pair and hop;
// adaptive: the least-used link so far).
#include <map>
#include <vector>

#include "hw/node.hpp"
#include "net/fabric.hpp"
#include "net/topology.hpp"

namespace net {

struct GraphLinks {
  double endpoint_Bps = hw::default_node().nic_Bps;
  double switch_Bps = hw::default_node().nic_Bps;
  double endpoint_latency_s = 0;
  double switch_latency_s = 0;
  core::Sharing sharing = core::Sharing::kMaxMin;
};

class GraphPlatform : public Platform {
 public:
  GraphPlatform(Graph graph, GraphLinks links, Routing routing);

  int gpus() const override { return static_cast<int>(endpoints_.size()); }
  double gpu_flops_per_s() const override { return 1e15; }
  core::Network network(const RoutePairs& pairs) const override;

  // The vertices from one GPU's endpoint to another's, both included.
  std::vector<VertexId> route(int src_gpu, int dst_gpu) const;
  const Graph& graph() const { return graph_; }

 private:
  const std::vector<int>& distances_to(VertexId target) const;

  Graph graph_;
  GraphLinks links_;
  Routing routing_;
  std::vector<VertexId> endpoints_;
  mutable std::map<VertexId, std::vector<int>> distances_;  // BFS from each destination asked for
  mutable std::map<std::pair<VertexId, VertexId>, int> link_use_;
};

}  // namespace net
