#include "net/fabric.hpp"

#include <map>
#include <stdexcept>

#include "core/input_error.hpp"
#include "net/flow_hash.hpp"

namespace net {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Leaves a plane (MPFT) or a rail (MRFT) needs for one NIC of every node.
int leaves_per_group(const FabricSpec& s) { return ceil_div(s.nodes, s.radix / 2); }

// Spines under a plane (MPFT; none when a plane has one leaf) or shared by the rails (MRFT).
int spines_per_group(const FabricSpec& s) {
  return s.kind == FabricKind::kMultiPlane && leaves_per_group(s) == 1 ? 0 : s.radix / 2;
}

}  // namespace

void check_static_route(const FabricSpec& s, const StaticRoute& r, const std::string& where) {
  auto refuse = [&](const std::string& field, long long value, const std::string& rule) {
    throw core::InputError(where + field, std::to_string(value) + " is not allowed; " + rule);
  };
  if (r.dst_gpu < 0 || r.dst_gpu >= s.nodes * s.gpus_per_node)
    refuse("to_gpu", r.dst_gpu, "a GPU of the fabric, from 0 to " + std::to_string(s.nodes * s.gpus_per_node - 1));
  const int spines = spines_per_group(s);
  if (r.spine < 0 || r.spine >= spines)
    refuse("spine", r.spine,
           spines == 0 ? std::string("this fabric has one leaf per plane and no spines to route through")
                       : "a spine index from 0 to " + std::to_string(spines - 1));
  if (r.from_leaf < -1 || r.from_leaf >= leaves_per_group(s))
    refuse("from_leaf", r.from_leaf, "a leaf index in its plane or rail, from 0 to " + std::to_string(leaves_per_group(s) - 1));
}

void check_fabric(const FabricSpec& s, const std::string& where) {
  auto refuse = [&](const std::string& field, long long value, const std::string& rule) {
    throw core::InputError(where + field, std::to_string(value) + " is not allowed; " + rule);
  };
  if (s.radix < 4 || s.radix % 2 != 0 || s.radix > 1024) refuse("radix", s.radix, "an even switch radix from 4 to 1024");
  if (s.gpus_per_node < 1 || s.gpus_per_node > 72) refuse("gpus_per_node", s.gpus_per_node, "from 1 to 72");
  if (s.nodes < 1) refuse("nodes", s.nodes, "at least 1");
  const int half = s.radix / 2;
  if (s.kind == FabricKind::kMultiPlane && s.nodes > half * s.radix)
    refuse("nodes", s.nodes, "a two-level fat tree of " + std::to_string(s.radix) + "-port switches has room for " +
                                 std::to_string(half * s.radix) + " nodes per plane");
  if (s.kind == FabricKind::kMultiRail && leaves_per_group(s) * s.gpus_per_node > s.radix)
    refuse("nodes", s.nodes, "a multi-rail fat tree of " + std::to_string(s.radix) + "-port switches has room for " +
                                 std::to_string(s.radix / s.gpus_per_node * half) + " nodes of " +
                                 std::to_string(s.gpus_per_node) + " GPUs");
  for (std::size_t i = 0; i < s.static_routes.size(); ++i)
    check_static_route(s, s.static_routes[i], where + "static_routes/" + std::to_string(i) + "/");
  if (!(s.pcie_Bps >= 0)) throw core::InputError(where + "pcie_bandwidth_Bps", std::to_string(s.pcie_Bps) + " is not allowed; a bandwidth >= 0 (0: not modelled)");
  for (auto [name, v] : {std::pair{"nvlink_bandwidth_Bps", s.nvlink_Bps}, {"nic_bandwidth_Bps", s.nic_Bps},
                         {"switch_link_bandwidth_Bps", s.switch_link_Bps}})
    if (!(v > 0)) throw core::InputError(where + name, std::to_string(v) + " is not allowed; a bandwidth > 0");
}

FabricPlatform::FabricPlatform(FabricSpec spec) : FabricPlatform(spec, -1) {}

FabricPlatform::FabricPlatform(FabricSpec spec, int plane) : spec_(spec), plane_(plane) {
  check_fabric(spec_, "");
  if (plane_ >= spec_.gpus_per_node) throw std::logic_error("a plane or rail alone is one of the fabric's");
  const int half = spec_.radix / 2;
  const int groups = spec_.gpus_per_node;  // planes or rails
  const int leaves = leaves_per_group(spec_);
  nic_.resize(gpus());
  leaf_.resize(gpus());
  const bool planes = spec_.kind == FabricKind::kMultiPlane;
  spines_.resize(planes ? groups : 1);
  // With one plane or rail alone, its leaves and NICs only (and a plane's spines).
  auto built = [&](int group) { return plane_ < 0 || group == plane_; };
  auto add_switch = [&](int plane, int level, int group) {
    return boost::add_vertex(Vertex{VertexKind::kSwitch, plane, level, group}, graph_);
  };
  // Spines: per plane for MPFT (only when a plane has several leaves), shared for MRFT.
  for (std::size_t p = 0; p < spines_.size(); ++p)
    if (!planes || (leaves > 1 && built(static_cast<int>(p))))
      for (int s = 0; s < half; ++s) spines_[p].push_back(add_switch(static_cast<int>(p), 1, 0));
  for (int g = 0; g < groups; ++g) {
    if (!built(g)) continue;
    std::vector<VertexId> group_leaves;
    for (int l = 0; l < leaves; ++l) {
      group_leaves.push_back(add_switch(planes ? g : 0, 0, g));
      for (VertexId spine : spines_[planes ? g : 0]) boost::add_edge(group_leaves.back(), spine, graph_);
    }
    for (int n = 0; n < spec_.nodes; ++n) {
      const int gpu = plane_ >= 0 ? n : n * spec_.gpus_per_node + g;
      nic_[gpu] = boost::add_vertex(Vertex{VertexKind::kEndpoint, planes ? g : 0, 0, g}, graph_);
      leaf_[gpu] = group_leaves[n / half];
      boost::add_edge(nic_[gpu], leaf_[gpu], graph_);
    }
  }
  for (const StaticRoute& r : spec_.static_routes) static_spine_[{r.from_leaf, r.dst_gpu}] = r.spine;
}

std::vector<VertexId> FabricPlatform::route(int src_gpu, int dst_gpu) const {
  const VertexId a = leaf_.at(src_gpu), b = leaf_.at(dst_gpu);
  const int src = fabric_gpu(src_gpu), dst = fabric_gpu(dst_gpu);  // routing reads the fabric's numbers
  if (a == b) return {a};
  const bool planes = spec_.kind == FabricKind::kMultiPlane;
  const int plane_a = graph_[a].plane, plane_b = graph_[b].plane;
  if (planes && plane_a != plane_b)
    throw std::logic_error("GPUs " + std::to_string(src) + " and " + std::to_string(dst) +
                           " sit in different planes of the multi-plane fat tree, which no path joins; send "
                           "through PXN (NVLink to the GPU of the destination's plane)");
  const auto& spines = spines_[planes ? plane_a : 0];
  if (spec_.routing == Routing::kSpray) return {a, b};
  // Adaptive routing depends on the order routes are asked for: a route, once chosen, stays.
  const bool adaptive = spec_.routing == Routing::kAdaptive;
  if (adaptive)
    if (auto it = chosen_spine_.find({src, dst}); it != chosen_spine_.end()) return {a, it->second, b};
  VertexId spine = spines[0];
  switch (spec_.routing) {
    case Routing::kStatic: {
      const int from_leaf = (src / spec_.gpus_per_node) / (spec_.radix / 2);
      auto it = static_spine_.find({from_leaf, dst});
      if (it == static_spine_.end()) it = static_spine_.find({-1, dst});
      if (it != static_spine_.end()) {
        spine = spines[static_cast<std::size_t>(it->second)];
        break;
      }
      [[fallthrough]];  // a destination the table does not name: the default table
    }
    case Routing::kDModK:  // the destination's port under its leaf (its node), modulo the spines
      spine = spines[static_cast<std::size_t>(dst / spec_.gpus_per_node) % spines.size()];
      break;
    case Routing::kEcmp: {
      const std::uint64_t x = flow_hash((static_cast<std::uint64_t>(src) << 32) ^ static_cast<std::uint64_t>(dst));
      spine = spines[x % spines.size()];
      break;
    }
    case Routing::kSpray:  // returned above
      break;
    case Routing::kAdaptive: {
      int best = -1;
      for (VertexId s : spines) {
        const int load = std::max(leaf_spine_load_[{a, s}], leaf_spine_load_[{s, b}]);
        if (best < 0 || load < best) {
          best = load;
          spine = s;
        }
      }
      ++leaf_spine_load_[{a, spine}];
      ++leaf_spine_load_[{spine, b}];
      break;
    }
  }
  if (adaptive) chosen_spine_[{src, dst}] = spine;
  return {a, spine, b};
}

core::Network FabricPlatform::network(const RoutePairs& pairs) const {
  core::Network net;
  net.set_sharing(spec_.sharing);
  // Per GPU, each direction: NVLink, NIC, PCIe (only where modelled).
  struct Ports {
    int nvlink_out, nvlink_in, nic_out, nic_in, pcie_out = -1, pcie_in = -1;
  };
  std::vector<Ports> ports;
  for (int g = 0; g < gpus(); ++g) {
    Ports p{net.add_link(spec_.nvlink_Bps, spec_.nvlink_latency_s), net.add_link(spec_.nvlink_Bps, spec_.nvlink_latency_s),
            net.add_link(spec_.nic_Bps, spec_.nic_latency_s), net.add_link(spec_.nic_Bps, spec_.nic_latency_s)};
    if (spec_.pcie_Bps > 0) {
      p.pcie_out = net.add_link(spec_.pcie_Bps, 0);
      p.pcie_in = net.add_link(spec_.pcie_Bps, 0);
    }
    ports.push_back(p);
  }
  // One link per direction of each switch-to-switch edge.
  std::map<std::pair<VertexId, VertexId>, int> links;
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) {
    const VertexId u = boost::source(*e, graph_), v = boost::target(*e, graph_);
    if (graph_[u].kind != VertexKind::kSwitch || graph_[v].kind != VertexKind::kSwitch) continue;
    links[{u, v}] = net.add_link(spec_.switch_link_Bps, spec_.switch_link_latency_s);
    links[{v, u}] = net.add_link(spec_.switch_link_Bps, spec_.switch_link_latency_s);
  }
  // Spraying: each leaf's uplinks as one link, and its downlinks, of the spines' summed bandwidth.
  std::map<VertexId, std::pair<int, int>> trunks;  // leaf -> (up, down)
  auto trunk = [&](VertexId leaf) {
    auto it = trunks.find(leaf);
    if (it != trunks.end()) return it->second;
    const auto& spines = spines_[spec_.kind == FabricKind::kMultiPlane ? graph_[leaf].plane : 0];
    const double Bps = spec_.switch_link_Bps * double(spines.size());
    const std::pair<int, int> links{net.add_link(Bps, spec_.switch_link_latency_s), net.add_link(Bps, spec_.switch_link_latency_s)};
    return trunks.emplace(leaf, links).first->second;
  };
  for (const auto& [src, dst] : pairs) {
    std::vector<int> path;
    if (node_of(src) == node_of(dst)) {
      path = {ports[src].nvlink_out, ports[dst].nvlink_in};
    } else {
      // GPU -> PCIe -> NIC -> switches -> NIC -> PCIe -> GPU (PCIe only where modelled).
      if (ports[src].pcie_out >= 0) path.push_back(ports[src].pcie_out);
      path.push_back(ports[src].nic_out);
      const auto switches = route(src, dst);
      if (spec_.routing == Routing::kSpray && switches.size() == 2) {
        path.push_back(trunk(switches[0]).first);
        path.push_back(trunk(switches[1]).second);
      } else {
        for (std::size_t i = 0; i + 1 < switches.size(); ++i) path.push_back(links.at({switches[i], switches[i + 1]}));
      }
      path.push_back(ports[dst].nic_in);
      if (ports[dst].pcie_in >= 0) path.push_back(ports[dst].pcie_in);
    }
    net.add_route(src, dst, path);
  }
  return net;
}

}  // namespace net
