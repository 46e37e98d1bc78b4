#pragma once
// A Table 3 topology at its full size for traffic by classes (net/scale_traffic): the built
// graph's switches as routers, the endpoints under each router merged into one injection and
// one ejection link of their summed bandwidth (they send and receive alike), a link per
// direction of every switch-to-switch edge, the routing as a split of a router pair's flows
// over paths, and the automorphisms of the fabric that keep its routing (generators, checked
// against the graph when built).
//  - two-level fat tree (one plane of an MPFT; its planes are alike) and three-level fat tree
//    (whole, or of fewer pods: a plane of a three-level MPFT):
//    d-mod-k (the up port is the destination's port modulo the up ports; a router pair's flows
//    split evenly over them by the destinations' ports), spraying (every up port evenly) or
//    adaptive (in the fluid limit the split that balances the up ports' loads: with no link
//    degraded, spraying's even split: a switch's (a pod's) up links must carry what leaves it, and
//    the even split loads each of them with that mean, the least bottleneck any split has), or
//    ECMP (each flow on one path, its up port at each switch a hash of its endpoints: flow_links;
//    no split of a router pair's flows stands for it, net/scale/counted_traffic counts them;
//    d-mod-k's paths flow by flow too, for a fault, which merged endpoints would hide);
//  - Slim Fly (MMS, prime q) and Dragonfly: minimal (split evenly over the minimal paths and
//    parallel links), Valiant (through an intermediate router drawn uniformly, in the fluid
//    limit: every router evenly) or UGAL (a share of each flow minimal, the rest Valiant's, the
//    share chosen by the traffic: net/ugal_share, net/scale_traffic).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "net/flow_hash.hpp"
#include "net/topology.hpp"

namespace net {

// Seconds of wall time since `start`: a build's or a run's own time, reported beside its figures.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

enum class ScaleRouting { kDModK, kSpray, kMinimal, kValiant, kAdaptive, kUgal, kEcmp };
// "d-mod-k", "spray", "minimal", "valiant", "adaptive", "ugal", "ecmp": by the enum's order.
const std::vector<std::string>& scale_routing_names();

// The bytes a fabric's graph and its classes need, estimated from the closed-form counts before
// anything is built (the Boost graph: vertices and edges; routers, links, orbits).
double scale_fabric_bytes(const TopologyCounts& counts);

class ScaleFabric {
 public:
  enum class Kind { kFatTree2, kFatTree3, kSlimFly, kDragonfly };
  // Throws core::InputError (naming `where`) for a topology that cannot be built, or a routing
  // it does not have (fat trees: d-mod-k, spray, adaptive, ECMP; Slim Fly and Dragonfly:
  // minimal, Valiant, UGAL).
  static ScaleFabric fat_tree_2(int radix, ScaleRouting routing, const std::string& where = "");
  // pods: 0, all the radix allows (one plane of a three-level MPFT: fewer pods, as its NICs need).
  static ScaleFabric fat_tree_3(int radix, ScaleRouting routing, const std::string& where = "", int pods = 0);
  static ScaleFabric slim_fly(int q, ScaleRouting routing, const std::string& where = "");
  static ScaleFabric dragonfly(int p, int a, int h, int groups, ScaleRouting routing, const std::string& where = "");

  Kind kind() const { return kind_; }
  ScaleRouting routing() const { return routing_; }
  int routers() const { return static_cast<int>(endpoints_.size()); }
  int endpoints_of(int router) const { return endpoints_[static_cast<std::size_t>(router)]; }
  long long endpoints() const { return endpoint_count_; }
  const TopologyCounts& counts() const { return counts_; }
  double build_s() const { return build_s_; }

  // Directed links: switch links first (one per direction of each edge), then each router's
  // merged injection link, then its merged ejection link.
  int links() const { return switch_links_ + 2 * routers(); }
  int injection(int router) const { return switch_links_ + router; }
  int ejection(int router) const { return switch_links_ + routers() + router; }
  bool is_switch_link(int link) const { return link < switch_links_; }

  // Adds `weight` x (the hops of one flow from `src` to `dst`, routers, both with endpoints) to
  // `use`, per switch link, split over paths as the routing splits it (injection and ejection
  // not included). Valiant's paths are two minimal ones, through every router evenly. UGAL's split
  // depends on the traffic (net/scale_traffic chooses it), ECMP's path on the endpoints
  // (flow_links): std::logic_error.
  void add_route(int src, int dst, double weight, std::vector<std::pair<int, double>>& use) const;
  // The same, minimal routing whatever the fabric's.
  void add_minimal_route(int src, int dst, double weight, std::vector<std::pair<int, double>>& use) const;

  // A fat tree's static routes flow by flow, ECMP's or d-mod-k's: the switch links of the flow
  // from endpoint `src` to endpoint `dst` (at most 4, written to `out`; their number returned).
  //  - ECMP: at each switch on the way up the port is
  //    net::flow_hash((src << 40) ^ (dst << 8) ^ (plane << 32) ^ hop) modulo the up ports, in the
  //    order of the switches they lead to, hop 1 at the edge switch (the endpoint's own link is hop
  //    0): net::GraphPlatform's hash on the same graph for plane 0; each other plane of an MPFT
  //    hashes with its own seed, as its NICs' addresses differ. Endpoints below 2^24, planes below 256.
  //  - d-mod-k: the destination's port under its edge switch at the edge switch, the index of its
  //    edge switch in its pod at the aggregation switch (add_route's split, flow by flow).
  // Inline: the hot loop of net/scale/counted_traffic, billions of flows at full size.
  int flow_links(long long src, long long dst, int plane, int* out) const {
    const long long half = radix_ / 2, es = src / half, ed = dst / half;
    if (es == ed) return 0;
    const bool hash = routing_ == ScaleRouting::kEcmp;
    const std::uint64_t key = (static_cast<std::uint64_t>(src) << 40) ^ (static_cast<std::uint64_t>(dst) << 8) ^
                              (static_cast<std::uint64_t>(plane) << 32);
    const long long i = hash ? up_port(flow_hash(key ^ 1)) : dst % half;
    out[0] = edge_up_[static_cast<std::size_t>(es * half + i)];
    if (kind_ == Kind::kFatTree2 || es / half == ed / half) {  // over a spine, or within a pod
      out[1] = edge_down_[static_cast<std::size_t>(ed * half + i)];
      return 2;
    }
    const long long c = hash ? up_port(flow_hash(key ^ 2)) : ed % half;
    out[1] = agg_up_[static_cast<std::size_t>((es / half * half + i) * half + c)];
    out[2] = agg_down_[static_cast<std::size_t>((ed / half * half + i) * half + c)];
    out[3] = edge_down_[static_cast<std::size_t>(ed * half + i)];
    return 4;
  }

  // Each link's share of its bandwidth that it keeps (1 but for `faults`: (switch link, share in
  // (0, 1])). Throws core::InputError naming "link_fractions" for a link that is no switch link or
  // a share outside (0, 1].
  std::vector<double> kept_shares(const std::vector<std::pair<int, double>>& faults) const;

  // The links from router u to router v (parallel edges: several); empty: not adjacent.
  std::vector<int> links_between(int u, int v) const;

  // Router permutations that are automorphisms of the graph (endpoints per router included) and
  // keep the routing; each was checked against the graph when built.
  const std::vector<std::vector<int>>& generators() const { return generators_; }
  // The image of a link under generator `g`.
  int map_link(std::size_t g, int link) const;

 private:
  ScaleFabric(Kind kind, ScaleRouting routing, const Graph& graph);
  // Throws std::logic_error when a generator is no automorphism of the graph.
  void check_generators() const;
  bool is_automorphism(const std::vector<int>& sigma) const;
  void add_link_split(int u, int v, double weight, std::vector<std::pair<int, double>>& use) const;

  Kind kind_;
  ScaleRouting routing_;
  std::vector<int> endpoints_;  // per router
  long long endpoint_count_ = 0;
  TopologyCounts counts_;
  int switch_links_ = 0;
  std::vector<std::size_t> adjacency_begin_;     // per router, into neighbours_
  std::vector<std::pair<int, int>> neighbours_;  // (neighbour router, link to it), sorted by neighbour
  std::vector<std::pair<int, int>> link_ends_;   // switch link -> (from, to)
  std::vector<int> parallel_index_;              // switch link -> its index among the links from `from` to `to`
  std::vector<std::vector<int>> generators_;
  double build_s_ = 0;
  // Structure the routing reads: radix and pods (fat trees), routers per group (Dragonfly).
  int radix_ = 0, pods_ = 0, a_ = 0;
  // Fat trees' links by position, for ECMP's path of a flow without a search: the link from an
  // edge switch (leaf) to its i-th up switch and back, [edge x half + i]; (three levels) from an
  // aggregation switch (pod, i) to its c-th core and back, [(pod x half + i) x half + c].
  std::vector<int> edge_up_, edge_down_, agg_up_, agg_down_;
  void index_fat_tree_links();
  // A hash modulo the k/2 up ports (a mask where k/2 is a power of two: the same port, no division).
  long long up_port(std::uint64_t hash) const {
    const auto half = static_cast<std::uint64_t>(radix_ / 2);
    return static_cast<long long>((half & (half - 1)) == 0 ? hash & (half - 1) : hash % half);
  }
  // Dragonfly: each group's global links, (other group, link) sorted, from global_begin_[group].
  std::vector<std::size_t> global_begin_;
  std::vector<std::pair<int, int>> globals_;
};

}  // namespace net
