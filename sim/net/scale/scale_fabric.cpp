#include "net/scale/scale_fabric.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/input_error.hpp"

namespace net {

namespace {

void check_routing(ScaleRouting routing, bool fat_tree, const std::string& where) {
  const bool ok = fat_tree ? routing == ScaleRouting::kDModK || routing == ScaleRouting::kSpray ||
                                 routing == ScaleRouting::kAdaptive || routing == ScaleRouting::kEcmp
                           : routing == ScaleRouting::kMinimal || routing == ScaleRouting::kValiant ||
                                 routing == ScaleRouting::kUgal;
  if (!ok)
    throw core::InputError(
        where + "routing",
        "'" + scale_routing_names()[static_cast<std::size_t>(routing)] + "' is not allowed; " +
            (fat_tree ? "a fat tree routes d-mod-k, spray, adaptive or ecmp" : "minimal, valiant or ugal"));
}

}  // namespace

const std::vector<std::string>& scale_routing_names() {
  static const std::vector<std::string> names = {"d-mod-k", "spray", "minimal", "valiant", "adaptive", "ugal", "ecmp"};
  return names;
}

double scale_fabric_bytes(const TopologyCounts& c) {
  // Boost's undirected adjacency list: about 64 B a vertex and 96 B an edge (its edge list and
  // both ends' out-edges); the router graph: 40 B a switch link and direction, 48 B a router.
  const double vertices = double(c.endpoints + c.switches), edges = double(c.endpoint_links + c.inter_switch_links);
  return 64 * vertices + 96 * edges + 80 * double(c.inter_switch_links) + 48 * double(c.switches);
}

ScaleFabric::ScaleFabric(Kind kind, ScaleRouting routing, const Graph& g)
    : kind_(kind), routing_(routing), counts_(count(g)) {
  std::vector<int> router_of(boost::num_vertices(g), -1);
  for (auto [v, end] = boost::vertices(g); v != end; ++v)
    if (g[*v].kind == VertexKind::kSwitch) {
      router_of[*v] = static_cast<int>(endpoints_.size());
      endpoints_.push_back(0);
    }
  std::vector<std::vector<std::pair<int, int>>> adjacent(endpoints_.size());
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const int u = router_of[boost::source(*e, g)], v = router_of[boost::target(*e, g)];
    if (u < 0 || v < 0) {
      ++endpoints_[static_cast<std::size_t>(u < 0 ? v : u)];
      ++endpoint_count_;
      continue;
    }
    adjacent[static_cast<std::size_t>(u)].push_back({v, switch_links_});
    link_ends_.push_back({u, v});
    adjacent[static_cast<std::size_t>(v)].push_back({u, switch_links_ + 1});
    link_ends_.push_back({v, u});
    switch_links_ += 2;
  }
  parallel_index_.assign(static_cast<std::size_t>(switch_links_), 0);
  for (auto& list : adjacent) {
    std::sort(list.begin(), list.end());
    adjacency_begin_.push_back(neighbours_.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0 && list[i].first == list[i - 1].first)
        parallel_index_[static_cast<std::size_t>(list[i].second)] =
            parallel_index_[static_cast<std::size_t>(list[i - 1].second)] + 1;
      neighbours_.push_back(list[i]);
    }
  }
  adjacency_begin_.push_back(neighbours_.size());
}

std::vector<int> ScaleFabric::links_between(int u, int v) const {
  const auto first = neighbours_.begin() + static_cast<std::ptrdiff_t>(adjacency_begin_[static_cast<std::size_t>(u)]);
  const auto last =
      neighbours_.begin() + static_cast<std::ptrdiff_t>(adjacency_begin_[static_cast<std::size_t>(u) + 1]);
  std::vector<int> out;
  for (auto it = std::lower_bound(first, last, std::pair{v, -1}); it != last && it->first == v; ++it)
    out.push_back(it->second);
  return out;
}

void ScaleFabric::add_link_split(int u, int v, double weight, std::vector<std::pair<int, double>>& use) const {
  const std::vector<int> links = links_between(u, v);
  if (links.empty())
    throw std::logic_error("a route takes routers " + std::to_string(u) + " and " + std::to_string(v) +
                           ", which are not joined");
  for (int l : links) use.push_back({l, weight / double(links.size())});
}

std::vector<double> ScaleFabric::kept_shares(const std::vector<std::pair<int, double>>& faults) const {
  std::vector<double> share(static_cast<std::size_t>(links()), 1.0);
  for (const auto& [l, kept] : faults) {
    if (l < 0 || !is_switch_link(l))
      throw core::InputError("link_fractions", std::to_string(l) + " is not allowed; a switch link, from 0 to " +
                                                   std::to_string(switch_links_ - 1));
    if (!(kept > 0 && kept <= 1))
      throw core::InputError(
          "link_fractions",
          std::to_string(kept) + " is not allowed; the fraction of its bandwidth a link keeps, in (0, 1]");
    share[static_cast<std::size_t>(l)] = kept;
  }
  return share;
}

int ScaleFabric::map_link(std::size_t g, int link) const {
  const std::vector<int>& sigma = generators_[g];
  if (link >= switch_links_) {
    const int r = (link - switch_links_) % routers();
    return link - r + sigma[static_cast<std::size_t>(r)];
  }
  const auto [u, v] = link_ends_[static_cast<std::size_t>(link)];
  return links_between(
      sigma[static_cast<std::size_t>(u)],
      sigma[static_cast<std::size_t>(v)])[static_cast<std::size_t>(parallel_index_[static_cast<std::size_t>(link)])];
}

bool ScaleFabric::is_automorphism(const std::vector<int>& sigma) const {
  if (sigma.size() != static_cast<std::size_t>(routers())) return false;
  std::vector<bool> hit(static_cast<std::size_t>(routers()), false);
  for (int u = 0; u < routers(); ++u) {
    const int su = sigma[static_cast<std::size_t>(u)];
    if (su < 0 || su >= routers() || hit[static_cast<std::size_t>(su)] || endpoints_of(su) != endpoints_of(u))
      return false;
    hit[static_cast<std::size_t>(su)] = true;
    for (std::size_t i = adjacency_begin_[static_cast<std::size_t>(u)];
         i < adjacency_begin_[static_cast<std::size_t>(u) + 1]; ++i) {
      const int v = neighbours_[i].first;
      if (links_between(su, sigma[static_cast<std::size_t>(v)]).size() != links_between(u, v).size()) return false;
    }
  }
  return true;
}

void ScaleFabric::check_generators() const {
  for (const auto& sigma : generators_)
    if (!is_automorphism(sigma)) throw std::logic_error("a symmetry of the fabric is no automorphism of its graph");
}

// Two-level fat tree, as fat_tree_2 builds one plane: spines [0, k/2), then leaves.
ScaleFabric ScaleFabric::fat_tree_2(int radix, ScaleRouting routing, const std::string& where) {
  check_routing(routing, true, where);
  const auto start = std::chrono::steady_clock::now();
  ScaleFabric f(Kind::kFatTree2, routing, net::fat_tree_2(radix, 1, where));
  f.radix_ = radix;
  f.pods_ = 1;
  f.index_fat_tree_links();
  const int half = radix / 2;
  std::vector<int> leaves(static_cast<std::size_t>(f.routers())), spines(leaves.size());
  for (int r = 0; r < f.routers(); ++r) {
    const bool spine = r < half;
    leaves[static_cast<std::size_t>(r)] = spine ? r : half + (r - half + 1) % radix;
    spines[static_cast<std::size_t>(r)] = spine ? (r + 1) % half : r;
  }
  f.generators_ = {leaves, spines};
  f.check_generators();
  f.build_s_ = seconds_since(start);
  return f;
}

// Three-level fat tree, as fat_tree_3 builds it: cores (group g, column c) at g k/2 + c, then
// per pod its k/2 aggregation switches and k/2 edge switches (pods in a ring: any number of them).
ScaleFabric ScaleFabric::fat_tree_3(int radix, ScaleRouting routing, const std::string& where, int pods) {
  check_routing(routing, true, where);
  const auto start = std::chrono::steady_clock::now();
  ScaleFabric f(Kind::kFatTree3, routing, net::fat_tree_3(radix, where, pods));
  if (pods == 0) pods = radix;
  f.radix_ = radix;
  f.pods_ = pods;
  f.index_fat_tree_links();
  const int half = radix / 2, cores = half * half;
  std::vector<int> next_pod(static_cast<std::size_t>(f.routers())), aggs(next_pod.size()), edges(next_pod.size());
  for (int r = 0; r < f.routers(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (r < cores) {
      const int g = r / half, c = r % half;
      next_pod[i] = r;
      aggs[i] = (g + 1) % half * half + c;
      edges[i] = g * half + (c + 1) % half;
      continue;
    }
    const int pod = (r - cores) / radix, at = (r - cores) % radix;  // at < half: aggregation
    next_pod[i] = cores + (pod + 1) % pods * radix + at;
    aggs[i] = at < half ? cores + pod * radix + (at + 1) % half : r;
    edges[i] = at < half ? r : cores + pod * radix + half + (at - half + 1) % half;
  }
  f.generators_ = {next_pod, aggs, edges};
  f.check_generators();
  f.build_s_ = seconds_since(start);
  return f;
}

// Two levels: leaves after the k/2 spines, each leaf's up switches the spines. Three levels: per
// pod its k/2 aggregation switches, then its k/2 edge switches, after the (k/2)^2 cores; an edge
// switch's up switches its pod's aggregation switches, aggregation switch i's the cores of group i.
void ScaleFabric::index_fat_tree_links() {
  const int half = radix_ / 2;
  const bool three = kind_ == Kind::kFatTree3;
  const int cores = three ? half * half : half, edges = three ? pods_ * half : radix_;
  auto one = [&](int u, int v) { return links_between(u, v).at(0); };
  for (int e = 0; e < edges; ++e) {
    const int edge = three ? cores + e / half * radix_ + half + e % half : half + e;
    for (int i = 0; i < half; ++i) {
      const int up = three ? cores + e / half * radix_ + i : i;
      edge_up_.push_back(one(edge, up));
      edge_down_.push_back(one(up, edge));
    }
  }
  if (!three) return;
  for (int a = 0; a < pods_ * half; ++a) {
    const int agg = cores + a / half * radix_ + a % half;
    for (int c = 0; c < half; ++c) {
      agg_up_.push_back(one(agg, a % half * half + c));
      agg_down_.push_back(one(a % half * half + c, agg));
    }
  }
}

// MMS Slim Fly, as slim_fly builds it: router (side, a, b) at (side q + a) q + b.
ScaleFabric ScaleFabric::slim_fly(int q, ScaleRouting routing, const std::string& where) {
  check_routing(routing, false, where);
  const auto start = std::chrono::steady_clock::now();
  ScaleFabric f(Kind::kSlimFly, routing, net::slim_fly(q, where));
  std::vector<int> shift(static_cast<std::size_t>(f.routers())), turn(shift.size());
  for (int r = 0; r < f.routers(); ++r) {
    const int side = r / (q * q), a = r / q % q, b = r % q;
    shift[static_cast<std::size_t>(r)] = (side * q + a) * q + (b + 1) % q;  // y + 1 and c + 1
    // (0, x, y) -> (0, x + 1, y); (1, m, c) -> (1, m, c - m): y = m x + c still holds
    turn[static_cast<std::size_t>(r)] = side == 0 ? ((a + 1) % q) * q + b : (q + a) * q + ((b - a) % q + q) % q;
  }
  f.generators_ = {shift, turn};
  f.check_generators();
  f.build_s_ = seconds_since(start);
  return f;
}

// Dragonfly, as dragonfly builds it: router r of group g at g a + r. Its round-robin global
// links join, in round d, every group to the group d on, so moving every group one on is a
// symmetry (checked).
ScaleFabric ScaleFabric::dragonfly(int p, int a, int h, int groups, ScaleRouting routing, const std::string& where) {
  check_routing(routing, false, where);
  const auto start = std::chrono::steady_clock::now();
  ScaleFabric f(Kind::kDragonfly, routing, net::dragonfly(p, a, h, groups, where));
  f.a_ = a;
  for (int g = 0; g < groups; ++g) {
    f.global_begin_.push_back(f.globals_.size());
    const std::size_t first = f.globals_.size();
    for (int r = g * a; r < g * a + a; ++r)
      for (std::size_t i = f.adjacency_begin_[static_cast<std::size_t>(r)];
           i < f.adjacency_begin_[static_cast<std::size_t>(r) + 1]; ++i)
        if (f.neighbours_[i].first / a != g)
          f.globals_.push_back({f.neighbours_[i].first / a, f.neighbours_[i].second});
    std::sort(f.globals_.begin() + static_cast<std::ptrdiff_t>(first), f.globals_.end());
  }
  f.global_begin_.push_back(f.globals_.size());
  std::vector<int> turn(static_cast<std::size_t>(f.routers()));
  for (int r = 0; r < f.routers(); ++r) turn[static_cast<std::size_t>(r)] = (r / a + 1) % groups * a + r % a;
  f.generators_ = {turn};
  f.check_generators();
  // Each round's two directions share a router, so turning the groups around (g -> -g) is one
  // too where the rounds pair up so: it keeps a fault on group 0's links half its orbit.
  std::vector<int> mirror(turn.size());
  for (int r = 0; r < f.routers(); ++r) mirror[static_cast<std::size_t>(r)] = (groups - r / a) % groups * a + r % a;
  if (f.is_automorphism(mirror)) f.generators_.push_back(mirror);
  f.build_s_ = seconds_since(start);
  return f;
}

void ScaleFabric::add_minimal_route(int s, int d, double w, std::vector<std::pair<int, double>>& use) const {
  if (s == d) return;
  switch (kind_) {
    case Kind::kFatTree2: {  // leaf, each spine evenly, leaf (d-mod-k by the destinations' ports too)
      const int half = radix_ / 2;
      for (int spine = 0; spine < half; ++spine) {
        add_link_split(s, spine, w / half, use);
        add_link_split(spine, d, w / half, use);
      }
      return;
    }
    case Kind::kFatTree3: {
      const int half = radix_ / 2, cores = half * half;
      const int pod_s = (s - cores) / radix_, pod_d = (d - cores) / radix_, edge_d = (d - cores) % radix_ - half;
      for (int i = 0; i < half; ++i) {
        const int agg_s = cores + pod_s * radix_ + i, agg_d = cores + pod_d * radix_ + i;
        if (pod_s == pod_d) {  // edge, each aggregation switch evenly, edge
          add_link_split(s, agg_s, w / half, use);
          add_link_split(agg_s, d, w / half, use);
          continue;
        }
        // d-mod-k: the aggregation switch by the destination's port, the core by its edge switch;
        // spraying, and adaptive routing's balanced split (no link is degraded on a fat tree
        // here): every aggregation switch and core evenly.
        const bool spray = routing_ == ScaleRouting::kSpray || routing_ == ScaleRouting::kAdaptive;
        const double share = spray ? w / cores : w / half;
        add_link_split(s, agg_s, w / half, use);
        for (int c = spray ? 0 : edge_d; c < (spray ? half : edge_d + 1); ++c) {
          add_link_split(agg_s, i * half + c, share, use);
          add_link_split(i * half + c, agg_d, share, use);
        }
        add_link_split(agg_d, d, w / half, use);
      }
      return;
    }
    case Kind::kSlimFly: {  // diameter 2: the link, or each common neighbour evenly
      if (!links_between(s, d).empty()) return add_link_split(s, d, w, use);
      std::vector<int> middle;
      const auto begin = [&](int r) {
        return neighbours_.begin() + static_cast<std::ptrdiff_t>(adjacency_begin_[static_cast<std::size_t>(r)]);
      };
      for (auto i = begin(s), j = begin(d); i != begin(s + 1) && j != begin(d + 1);) {
        if (i->first < j->first)
          ++i;
        else if (j->first < i->first)
          ++j;
        else {
          middle.push_back(i->first);
          ++i, ++j;
        }
      }
      for (int m : middle) {
        add_link_split(s, m, w / double(middle.size()), use);
        add_link_split(m, d, w / double(middle.size()), use);
      }
      return;
    }
    case Kind::kDragonfly: {  // local, global (each of the groups' links evenly), local
      const int gs = s / a_, gd = d / a_;
      if (gs == gd) return add_link_split(s, d, w, use);
      const auto first = globals_.begin() + static_cast<std::ptrdiff_t>(global_begin_[static_cast<std::size_t>(gs)]);
      const auto last = globals_.begin() + static_cast<std::ptrdiff_t>(global_begin_[static_cast<std::size_t>(gs) + 1]);
      const auto [from, to] = std::equal_range(first, last, std::pair{gd, 0},
                                               [](const auto& x, const auto& y) { return x.first < y.first; });
      const double share = w / double(to - from);
      for (auto it = from; it != to; ++it) {
        const auto [u, v] = link_ends_[static_cast<std::size_t>(it->second)];
        const int l = it->second;
        if (u != s) add_link_split(s, u, share, use);
        use.push_back({l, share});
        if (v != d) add_link_split(v, d, share, use);
      }
      return;
    }
  }
}

void ScaleFabric::add_route(int s, int d, double w, std::vector<std::pair<int, double>>& use) const {
  if (routing_ == ScaleRouting::kUgal)
    throw std::logic_error("UGAL splits a flow by the traffic's loads: simulate_scale_traffic chooses the split");
  if (routing_ == ScaleRouting::kEcmp)
    throw std::logic_error("ECMP routes a flow by its endpoints, not its routers: flow_links");
  if (routing_ != ScaleRouting::kValiant) return add_minimal_route(s, d, w, use);
  if (s == d) return;
  const double share = w / routers();
  for (int i = 0; i < routers(); ++i) {
    add_minimal_route(s, i, share, use);
    add_minimal_route(i, d, share, use);
  }
}

}  // namespace net
