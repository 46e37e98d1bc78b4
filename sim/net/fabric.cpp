#include "net/fabric.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "core/input_error.hpp"
#include "net/flow_hash.hpp"

namespace net {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// One key for a pair of vertices, or of GPUs, for the hashed maps routing looks pairs up in.
std::uint64_t vertex_pair(VertexId a, VertexId b) {
  return static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
}
std::uint64_t gpu_pair(int a, int b) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32 | static_cast<std::uint32_t>(b);
}

// Leaves a plane (MPFT) or a rail (MRFT) needs for one NIC of every node.
int leaves_per_group(const FabricSpec& s) { return ceil_div(s.nodes, s.radix / 2); }

// Spines under a plane (MPFT; none when a plane has one leaf) or shared by the rails (MRFT).
int spines_per_group(const FabricSpec& s) {
  return s.kind == FabricKind::kMultiPlane && leaves_per_group(s) == 1 ? 0 : s.radix / 2;
}

}  // namespace

int fabric_leaves_per_group(const FabricSpec& s) { return leaves_per_group(s); }
int fabric_spines_per_group(const FabricSpec& s) { return spines_per_group(s); }

void check_faults(const FabricSpec& s, const std::string& where) {
  // Two faults of one component at once would multiply its bandwidth fractions.
  std::vector<std::pair<std::array<int, 8>, std::size_t>> components;
  for (std::size_t i = 0; i < s.faults.size(); ++i) {
    const Fault& f = s.faults[i];
    const std::string at = where + "faults/" + std::to_string(i) + "/";
    const FabricComponent c = find_fabric_component(s, f.kind, f.target, at + "target");
    const std::array<int, 8> key{
        static_cast<int>(c.kind), c.plane, c.leaf, c.spine, c.leaf_port, c.node, c.local, c.port};
    for (const auto& [other_key, j] : components) {
      const Fault& g = s.faults[j];
      if (other_key == key && f.at_s < g.at_s + g.for_s && g.at_s < f.at_s + f.for_s)
        throw core::InputError(at + "target", "'" + f.target + "' is not allowed twice at once (faults/" +
                                                  std::to_string(j) +
                                                  " names it too); give a component one fault at a time");
    }
    components.emplace_back(key, i);
    if (!(f.at_s >= 0) || !std::isfinite(f.at_s))
      throw core::InputError(at + "at_s", std::to_string(f.at_s) + " is not allowed; a time from 0 s, within the run");
    if (!(f.for_s > 0))
      throw core::InputError(at + "for_s",
                             std::to_string(f.for_s) + " is not allowed; a duration > 0 s (leave it out: to the end)");
    if (!(f.bandwidth_fraction >= 0 && f.bandwidth_fraction < 1))
      throw core::InputError(
          at + "bandwidth_fraction",
          std::to_string(f.bandwidth_fraction) +
              " is not allowed; the fraction of its bandwidth a faulty component keeps, from 0 (down) to below 1");
    if ((f.kind == FaultKind::kGpu || f.kind == FaultKind::kNode) && f.bandwidth_fraction != 0)
      throw core::InputError(at + "bandwidth_fraction",
                             "is not allowed for a " + fault_kind_names()[static_cast<std::size_t>(f.kind)] +
                                 " fault; a GPU or node that fails stops the job (a slow GPU is a straggler)");
  }
  if (!(s.table_update_s >= 0))
    throw core::InputError(where + "table_update_s",
                           std::to_string(s.table_update_s) + " is not allowed; a time >= 0 s");
  if (!(s.pxn_failover_s >= 0))
    throw core::InputError(where + "pxn_failover_s",
                           std::to_string(s.pxn_failover_s) + " is not allowed; a time >= 0 s");
}

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
    refuse("from_leaf", r.from_leaf,
           "a leaf index in its plane or rail, from 0 to " + std::to_string(leaves_per_group(s) - 1));
}

void check_fabric(const FabricSpec& s, const std::string& where) {
  auto refuse = [&](const std::string& field, long long value, const std::string& rule) {
    throw core::InputError(where + field, std::to_string(value) + " is not allowed; " + rule);
  };
  if (s.radix < 4 || s.radix % 2 != 0 || s.radix > 1024)
    refuse("radix", s.radix, "an even switch radix from 4 to 1024");
  if (s.gpus_per_node < 1 || s.gpus_per_node > 72) refuse("gpus_per_node", s.gpus_per_node, "from 1 to 72");
  if (s.nodes < 1) refuse("nodes", s.nodes, "at least 1");
  const int half = s.radix / 2;
  if (s.kind == FabricKind::kMultiPlane && s.nodes > half * s.radix)
    refuse("nodes", s.nodes,
           "a two-level fat tree of " + std::to_string(s.radix) + "-port switches has room for " +
               std::to_string(half * s.radix) + " nodes per plane");
  if (s.kind == FabricKind::kMultiRail && leaves_per_group(s) * s.gpus_per_node > s.radix)
    refuse("nodes", s.nodes,
           "a multi-rail fat tree of " + std::to_string(s.radix) + "-port switches has room for " +
               std::to_string(s.radix / s.gpus_per_node * half) + " nodes of " + std::to_string(s.gpus_per_node) +
               " GPUs");
  for (std::size_t i = 0; i < s.static_routes.size(); ++i)
    check_static_route(s, s.static_routes[i], where + "static_routes/" + std::to_string(i) + "/");
  if (!(s.pcie_Bps >= 0))
    throw core::InputError(where + "pcie_bandwidth_Bps",
                           std::to_string(s.pcie_Bps) + " is not allowed; a bandwidth >= 0 (0: not modelled)");
  if (s.nic_ports < 1 || s.gpus_per_node % s.nic_ports != 0 || (s.nic_ports > 1 && s.kind != FabricKind::kMultiPlane))
    refuse("nic_ports", s.nic_ports,
           "ports per NIC that divide the " + std::to_string(s.gpus_per_node) +
               " planes of a multi-plane fat tree (1 on a multi-rail one)");
  check_faults(s, where);
  for (auto [name, v] : {std::pair{"nvlink_bandwidth_Bps", s.nvlink_Bps},
                         {"nic_bandwidth_Bps", s.nic_Bps},
                         {"switch_link_bandwidth_Bps", s.switch_link_Bps}})
    if (!(v > 0)) throw core::InputError(where + name, std::to_string(v) + " is not allowed; a bandwidth > 0");
}

FabricPlatform::FabricPlatform(FabricSpec spec) : FabricPlatform(spec, -1) {}

FabricPlatform::FabricPlatform(FabricSpec spec, int plane) : spec_(spec), plane_(plane) {
  check_fabric(spec_, "");
  if (plane_ >= spec_.gpus_per_node) throw std::logic_error("a plane or rail alone is one of the fabric's");
  if (plane_ >= 0 && !spec_.faults.empty())
    throw std::logic_error("a plane or rail alone has no faults: they break its symmetry");
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

// What routing knows of the fabric at an instant, per link of the network: its bandwidth as
// switch tables see it (late by table_update_s unless adaptive or sprayed), as PXN failover
// sees it (late by pxn_failover_s), and, for multi-port NICs, the ports that are down now.
struct FabricPlatform::View {
  std::vector<double> switch_Bps, host_Bps;
  std::set<std::pair<int, int>> dead_ports;  // (fabric GPU, plane)
  // Per (leaf, leaf): which of the plane's spines routing knows both links to be up, found once.
  mutable std::unordered_map<std::uint64_t, std::vector<char>> spines_up;  // by vertex_pair(a, b)
};

struct FabricPlatform::Links {
  struct Ports {
    int nvlink_out, nvlink_in, nic_out, nic_in, pcie_out = -1, pcie_in = -1;
  };
  std::vector<Ports> ports;  // per GPU
  // Switch to switch, each direction, by vertex_pair(from, to): hashed, as every route of a
  // 2,048-GPU all-to-all looks two up (a tree map of them was a tenth of a fault case's time).
  std::unordered_map<std::uint64_t, int> edges;
  int edge(VertexId from, VertexId to) const { return edges.at(vertex_pair(from, to)); }
  std::map<VertexId, std::pair<int, int>> trunks;  // spraying: leaf -> (uplinks, downlinks)
};

std::vector<VertexId> FabricPlatform::route(int src_gpu, int dst_gpu) const {
  const VertexId a = leaf_.at(src_gpu), b = leaf_.at(dst_gpu);
  if (a == b) return {a};
  const bool planes = spec_.kind == FabricKind::kMultiPlane;
  if (planes && graph_[a].plane != graph_[b].plane)
    throw std::logic_error("GPUs " + std::to_string(fabric_gpu(src_gpu)) + " and " +
                           std::to_string(fabric_gpu(dst_gpu)) +
                           " sit in different planes of the multi-plane fat tree, which no path joins; send "
                           "through PXN (NVLink to the GPU of the destination's plane)");
  if (spec_.routing == Routing::kSpray) return {a, b};
  return {
      a, static_cast<VertexId>(pick_spine(a, b, fabric_gpu(src_gpu), fabric_gpu(dst_gpu), nullptr, nullptr, adaptive_)),
      b};
}

long FabricPlatform::pick_spine(VertexId a, VertexId b, int src, int dst, const View* view, const Links* links,
                                AdaptiveState& state) const {
  const auto& spines = spines_[spec_.kind == FabricKind::kMultiPlane ? graph_[a].plane : 0];
  const std::size_t S = spines.size();
  // The spines a route may take: all, or, with a view, those whose two links routing knows to be up.
  const std::vector<char>* up = nullptr;
  std::size_t usable = S;
  if (view) {
    auto [it, added] = view->spines_up.try_emplace(vertex_pair(a, b));
    if (added)
      for (VertexId s : spines)
        it->second.push_back(view->switch_Bps[static_cast<std::size_t>(links->edge(a, s))] > 0 &&
                             view->switch_Bps[static_cast<std::size_t>(links->edge(s, b))] > 0);
    up = &it->second;
    usable = static_cast<std::size_t>(std::count(up->begin(), up->end(), 1));
    if (usable == 0) return -1;
  }
  auto alive = [&](std::size_t k) { return !up || (*up)[k]; };
  auto nth_usable = [&](std::size_t n) {  // the n-th usable spine, in the plane's order
    for (std::size_t k = 0; k < S; ++k)
      if (alive(k) && n-- == 0) return k;
    throw std::logic_error("no usable spine");
  };
  // The table's spine if it is usable, else the next usable one, as a re-swept table has it.
  auto from_table = [&](std::size_t index) {
    for (std::size_t k = 0; k < S; ++k)
      if (alive((index + k) % S)) return (index + k) % S;
    return nth_usable(0);
  };
  // Adaptive routing depends on the order routes are asked for: a route, once chosen, stays.
  const bool adaptive = spec_.routing == Routing::kAdaptive;
  if (adaptive)
    if (auto it = state.chosen_spine.find(gpu_pair(src, dst)); it != state.chosen_spine.end() && alive(it->second))
      return static_cast<long>(spines[it->second]);
  std::size_t spine = nth_usable(0);
  switch (spec_.routing) {
    case Routing::kStatic: {
      const int from_leaf = (src / spec_.gpus_per_node) / (spec_.radix / 2);
      auto it = static_spine_.find({from_leaf, dst});
      if (it == static_spine_.end()) it = static_spine_.find({-1, dst});
      if (it != static_spine_.end()) {
        spine = from_table(static_cast<std::size_t>(it->second));
        break;
      }
      [[fallthrough]];  // a destination the table does not name: the default table
    }
    case Routing::kDModK:  // the destination's port under its leaf (its node), modulo the spines
      spine = from_table(static_cast<std::size_t>(dst / spec_.gpus_per_node) % S);
      break;
    case Routing::kEcmp: {  // the hash over the usable spines, as a switch's ECMP group holds its up ports
      const std::uint64_t x = flow_hash((static_cast<std::uint64_t>(src) << 32) ^ static_cast<std::uint64_t>(dst));
      spine = nth_usable(x % usable);
      break;
    }
    case Routing::kSpray:  // trunks: no spine chosen
      break;
    case Routing::kAdaptive: {
      if (state.up_load.empty()) {
        state.up_load.assign(boost::num_vertices(graph_) * S, 0);
        state.down_load.assign(boost::num_vertices(graph_) * S, 0);
      }
      int* up_load = &state.up_load[a * S];
      int* down_load = &state.down_load[b * S];
      int best = -1;
      for (std::size_t k = 0; k < S; ++k) {
        if (!alive(k)) continue;
        const int load = std::max(up_load[k], down_load[k]);
        if (best < 0 || load < best) {
          best = load;
          spine = k;
        }
      }
      ++up_load[spine];
      ++down_load[spine];
      state.chosen_spine[gpu_pair(src, dst)] = spine;
      break;
    }
  }
  return static_cast<long>(spines[spine]);
}

void FabricPlatform::add_switch_links(std::vector<int>& path, VertexId a, VertexId b, long spine,
                                      const Links& links) const {
  if (a == b) return;
  if (spine < 0) {  // spraying
    path.push_back(links.trunks.at(a).first);
    path.push_back(links.trunks.at(b).second);
    return;
  }
  path.push_back(links.edge(a, static_cast<VertexId>(spine)));
  path.push_back(links.edge(static_cast<VertexId>(spine), b));
}

std::vector<int> FabricPlatform::path(int src, int dst, const Links& links, const View* view,
                                      AdaptiveState& state) const {
  const auto& p = links.ports;
  if (node_of(src) == node_of(dst)) return {p[src].nvlink_out, p[dst].nvlink_in};
  const int G = spec_.gpus_per_node;
  // From GPU s's NIC to GPU d's through plane (or rail) `plane` of s's and d's nodes: empty
  // where routing knows a NIC, port or every spine between them to be down.
  auto direct = [&](int s, int d, int plane_s, int plane_d) -> std::vector<int> {
    const int fs = fabric_gpu(s), fd = fabric_gpu(d);
    if (view && (view->host_Bps[static_cast<std::size_t>(p[s].nic_out)] <= 0 ||
                 view->host_Bps[static_cast<std::size_t>(p[d].nic_in)] <= 0))
      return {};
    if (view && (view->dead_ports.count({fs, plane_s}) || view->dead_ports.count({fd, plane_d}))) return {};
    const VertexId a = leaf_[plane_ >= 0 ? s : node_of(s) * G + plane_s],
                   b = leaf_[plane_ >= 0 ? d : node_of(d) * G + plane_d];
    long spine = -1;
    if (a != b && spec_.routing == Routing::kSpray) {
      if (view && (view->switch_Bps[static_cast<std::size_t>(links.trunks.at(a).first)] <= 0 ||
                   view->switch_Bps[static_cast<std::size_t>(links.trunks.at(b).second)] <= 0))
        return {};
    } else if (a != b && (spine = pick_spine(a, b, fs, fd, view, &links, state)) < 0) {
      return {};
    }
    std::vector<int> out;
    if (p[s].pcie_out >= 0) out.push_back(p[s].pcie_out);
    out.push_back(p[s].nic_out);
    add_switch_links(out, a, b, spine, links);
    out.push_back(p[d].nic_in);
    if (p[d].pcie_in >= 0) out.push_back(p[d].pcie_in);
    return out;
  };
  const int local_s = fabric_gpu(src) % G, local_d = fabric_gpu(dst) % G;
  auto route = direct(src, dst, local_s, local_d);
  if (!route.empty() || !view) {
    if (route.empty()) throw std::logic_error("a healthy fabric has a path between every two NICs of a plane or rail");
    return route;
  }
  // The flows a lost NIC or plane carried go over the alternatives evenly, a flow to one of them
  // (it is not split): the k-th by the sum of the two nodes' numbers, so that a node's flows to
  // the other nodes, and the flows into a node from the others, each take them in turn.
  const std::size_t spread = static_cast<std::size_t>(node_of(src) + node_of(dst));
  auto first_of = [&](std::vector<std::vector<int>>& alternatives) {
    return alternatives.empty() ? std::vector<int>{} : std::move(alternatives[spread % alternatives.size()]);
  };
  // A multi-port NIC sprays over its other ports, into the sibling planes of its group.
  const int P = spec_.nic_ports;
  std::vector<std::vector<int>> alternatives;
  for (int sibling = local_s / P * P; P > 1 && local_s / P == local_d / P && sibling < local_s / P * P + P; ++sibling)
    if (sibling != local_s && !(route = direct(src, dst, sibling, sibling)).empty())
      alternatives.push_back(std::move(route));
  if (!alternatives.empty()) return first_of(alternatives);
  // PXN: over NVLink to a GPU of the source's node whose NIC works, across its plane, and over
  // NVLink from the GPU of that plane on the destination's node.
  for (int r = 0; r < G; ++r) {
    const int s2 = node_of(src) * G + r, d2 = node_of(dst) * G + r;
    if ((s2 == src && d2 == dst) || (route = direct(s2, d2, r, r)).empty()) continue;
    std::vector<int> out;
    if (s2 != src) out = {p[src].nvlink_out, p[s2].nvlink_in};
    out.insert(out.end(), route.begin(), route.end());
    if (d2 != dst) out.insert(out.end(), {p[d2].nvlink_out, p[dst].nvlink_in});
    alternatives.push_back(std::move(out));
  }
  return first_of(alternatives);
}

core::Network FabricPlatform::network(const RoutePairs& pairs) const {
  core::Network net;
  net.set_sharing(spec_.sharing);
  Links links;
  // Per GPU, each direction: NVLink, NIC, PCIe (only where modelled).
  for (int g = 0; g < gpus(); ++g) {
    Links::Ports p{net.add_link(spec_.nvlink_Bps, spec_.nvlink_latency_s),
                   net.add_link(spec_.nvlink_Bps, spec_.nvlink_latency_s),
                   net.add_link(spec_.nic_Bps, spec_.nic_latency_s), net.add_link(spec_.nic_Bps, spec_.nic_latency_s)};
    if (spec_.pcie_Bps > 0) {
      p.pcie_out = net.add_link(spec_.pcie_Bps, 0);
      p.pcie_in = net.add_link(spec_.pcie_Bps, 0);
    }
    links.ports.push_back(p);
  }
  // One link per direction of each switch-to-switch edge.
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) {
    const VertexId u = boost::source(*e, graph_), v = boost::target(*e, graph_);
    if (graph_[u].kind != VertexKind::kSwitch || graph_[v].kind != VertexKind::kSwitch) continue;
    links.edges[vertex_pair(u, v)] = net.add_link(spec_.switch_link_Bps, spec_.switch_link_latency_s);
    links.edges[vertex_pair(v, u)] = net.add_link(spec_.switch_link_Bps, spec_.switch_link_latency_s);
  }
  // Spraying: each leaf's uplinks as one link, and its downlinks, of the spines' summed bandwidth.
  if (spec_.routing == Routing::kSpray)
    for (VertexId leaf : std::set<VertexId>(leaf_.begin(), leaf_.end())) {
      const auto& spines = spines_[spec_.kind == FabricKind::kMultiPlane ? graph_[leaf].plane : 0];
      const double Bps = spec_.switch_link_Bps * double(spines.size());
      links.trunks[leaf] = {net.add_link(Bps, spec_.switch_link_latency_s),
                            net.add_link(Bps, spec_.switch_link_latency_s)};
    }
  if (std::none_of(spec_.faults.begin(), spec_.faults.end(),
                   [](const Fault& f) { return f.kind != FaultKind::kGpu && f.kind != FaultKind::kNode; })) {
    for (const auto& [src, dst] : pairs) net.add_route(src, dst, path(src, dst, links, nullptr, adaptive_));
  } else {
    add_faults(net, pairs, links);
  }
  return net;
}

void FabricPlatform::add_faults(core::Network& net, const RoutePairs& pairs, const Links& links) const {
  const int G = spec_.gpus_per_node, P = spec_.nic_ports, half = spec_.radix / 2;
  const bool planes = spec_.kind == FabricKind::kMultiPlane;
  // What each fault does: links it slows by a share of what it loses (a multi-port NIC loses one
  // port's share when one of its planes does), and the multi-port NICs' ports it takes down.
  struct Effect {
    std::vector<std::pair<int, double>> link_share;  // (link, share of its bandwidth the fault takes the loss of)
    std::vector<std::pair<int, int>> ports;          // (GPU, plane)
  };
  auto leaf_vertex = [&](int plane, int leaf) {
    return leaf_[static_cast<std::size_t>(std::min(leaf * half, spec_.nodes - 1) * G + plane)];
  };
  auto spine_vertex = [&](int plane, int spine) {
    return spines_[planes ? static_cast<std::size_t>(plane) : 0][static_cast<std::size_t>(spine)];
  };
  auto vertex_edges = [&](VertexId v, Effect& e) {
    for (auto [a, end] = boost::adjacent_vertices(v, graph_); a != end; ++a)
      if (graph_[*a].kind == VertexKind::kSwitch)
        e.link_share.insert(e.link_share.end(), {{links.edge(v, *a), 1.0}, {links.edge(*a, v), 1.0}});
  };
  // The NIC port of GPU `gpu` in plane `plane` (its only port, or one of a multi-port NIC's).
  auto nic_port = [&](int gpu, int plane, Effect& e) {
    const double share = P > 1 ? 1.0 / P : 1.0;
    e.link_share.insert(e.link_share.end(), {{links.ports[gpu].nic_out, share}, {links.ports[gpu].nic_in, share}});
    if (P > 1) e.ports.push_back({gpu, plane});
  };
  // The NICs with a port in plane `plane` on node `node`.
  auto ports_in_plane = [&](int node, int plane, Effect& e) {
    if (P == 1 || !planes) return nic_port(node * G + plane, plane, e);
    for (int i = plane / P * P; i < plane / P * P + P; ++i) nic_port(node * G + i, plane, e);
  };
  std::vector<Effect> effects;
  for (std::size_t i = 0; i < spec_.faults.size(); ++i) {
    const Fault& f = spec_.faults[i];
    const FabricComponent c = find_fabric_component(spec_, f.kind, f.target, "faults/" + std::to_string(i));
    Effect e;
    switch (f.kind) {
      case FaultKind::kLink:
        if (c.spine >= 0) {
          const VertexId a = leaf_vertex(c.plane, c.leaf), s = spine_vertex(c.plane, c.spine);
          e.link_share = {{links.edge(a, s), 1.0}, {links.edge(s, a), 1.0}};
        } else {
          nic_port((c.leaf * half + c.leaf_port) * G + c.plane, c.plane,
                   e);  // the cable to the NIC of that plane's index
        }
        break;
      case FaultKind::kNic:
        if (c.port >= 0) {
          nic_port(c.node * G + c.local, c.local / P * P + c.port, e);
        } else {
          const int gpu = c.node * G + c.local;
          e.link_share = {{links.ports[gpu].nic_out, 1.0}, {links.ports[gpu].nic_in, 1.0}};
          for (int j = 0; P > 1 && j < P; ++j) e.ports.push_back({gpu, c.local / P * P + j});
        }
        break;
      case FaultKind::kSwitch:
        if (c.leaf >= 0) {
          vertex_edges(leaf_vertex(c.plane, c.leaf), e);
          for (int n = c.leaf * half; n < std::min(spec_.nodes, (c.leaf + 1) * half); ++n)
            ports_in_plane(n, c.plane, e);
        } else {
          vertex_edges(spine_vertex(c.plane, c.spine), e);
        }
        break;
      case FaultKind::kPlane:  // a plane's switches and NIC ports; a rail's leaves (its spines are shared)
        for (int l = 0; l < leaves_per_group(spec_); ++l) vertex_edges(leaf_vertex(c.plane, l), e);
        for (int s = 0; planes && s < static_cast<int>(spines_[static_cast<std::size_t>(c.plane)].size()); ++s)
          vertex_edges(spine_vertex(c.plane, s), e);
        for (int n = 0; n < spec_.nodes; ++n) ports_in_plane(n, c.plane, e);
        break;
      case FaultKind::kGpu:
      case FaultKind::kNode:  // the job stops: nothing for the network to do
        break;
    }
    effects.push_back(std::move(e));
  }
  // Instants at which something changes: faults start and end, and routing learns of it.
  const double table_s =
      spec_.routing == Routing::kAdaptive || spec_.routing == Routing::kSpray ? 0.0 : spec_.table_update_s;
  std::set<double> instants{0.0};
  for (const Fault& f : spec_.faults)
    for (double delay : {0.0, table_s, spec_.pxn_failover_s})
      for (double t : {f.at_s + delay, f.at_s + f.for_s + delay})
        if (std::isfinite(t)) instants.insert(t);
  std::vector<double> base_Bps;
  for (const auto& l : net.links()) base_Bps.push_back(l.Bps);
  // Each link's bandwidth at `t` as known `delay_s` after the fact.
  auto bandwidths = [&](double t, double delay_s) {
    std::vector<double> Bps = base_Bps;
    for (std::size_t i = 0; i < spec_.faults.size(); ++i) {
      const Fault& f = spec_.faults[i];
      if (!(f.at_s + delay_s <= t && t < f.at_s + f.for_s + delay_s)) continue;
      for (const auto& [link, share] : effects[i].link_share)
        Bps[static_cast<std::size_t>(link)] *= std::max(0.0, 1 - share * (1 - f.bandwidth_fraction));
    }
    // Rounding of shares that add up to the whole: what is left of nothing is nothing.
    for (std::size_t l = 0; l < Bps.size(); ++l)
      if (Bps[l] < 1e-9 * base_Bps[l]) Bps[l] = 0;
    for (const auto& [leaf, trunk] : links.trunks) {  // a leaf's sprayed trunks: the sum of its links to the spines
      double up = 0, down = 0;
      for (VertexId s : spines_[planes ? static_cast<std::size_t>(graph_[leaf].plane) : 0]) {
        up += Bps[static_cast<std::size_t>(links.edge(leaf, s))];
        down += Bps[static_cast<std::size_t>(links.edge(s, leaf))];
      }
      Bps[static_cast<std::size_t>(trunk.first)] = up;
      Bps[static_cast<std::size_t>(trunk.second)] = down;
    }
    return Bps;
  };
  std::vector<double> last_Bps;
  std::vector<std::vector<int>> last_routes;
  for (double t : instants) {
    View view;
    view.switch_Bps = bandwidths(t, table_s);
    view.host_Bps = bandwidths(t, spec_.pxn_failover_s);
    for (std::size_t i = 0; i < spec_.faults.size(); ++i) {
      const Fault& f = spec_.faults[i];
      if (f.bandwidth_fraction == 0 && f.at_s <= t && t < f.at_s + f.for_s)
        view.dead_ports.insert(effects[i].ports.begin(), effects[i].ports.end());
    }
    AdaptiveState state;
    const std::vector<double> now_Bps = bandwidths(t, 0);
    core::NetworkChange change{t, {}, {}};
    std::size_t k = 0;
    for (const auto& [src, dst] : pairs) {
      std::vector<int> route = path(src, dst, links, &view, state);
      if (route.empty())
        throw core::InputError("faults", "leave GPU " + std::to_string(fabric_gpu(src)) + " no path to GPU " +
                                             std::to_string(fabric_gpu(dst)) + " at " + std::to_string(t) +
                                             " s: every NIC, plane or spine between their nodes is down");
      if (t == 0) {
        net.add_route(src, dst, route);
        last_routes.push_back(std::move(route));
      } else if (route != last_routes[k]) {
        change.routes.push_back({k, route});
        last_routes[k] = std::move(route);
      }
      ++k;
    }
    for (std::size_t l = 0; l < now_Bps.size(); ++l) {
      if (t == 0)
        net.set_link_Bps(static_cast<int>(l), now_Bps[l]);
      else if (now_Bps[l] != last_Bps[l])
        change.link_Bps.push_back({static_cast<int>(l), now_Bps[l]});
    }
    last_Bps = now_Bps;
    if (t > 0 && (!change.link_Bps.empty() || !change.routes.empty())) net.add_change(std::move(change));
  }
}

}  // namespace net
