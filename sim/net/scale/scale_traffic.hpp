#pragma once
// Collective traffic on a Table 3 topology at its full size (net/scale_fabric), simulated by
// classes of flows (net/flow_classes): the fabric's symmetries that also keep the traffic split
// its routers, links and flows into orbits; one router of each orbit sends, and its flows, with
// the link orbits they cross, are the classes, merged where they cross the same link orbits
// alike. The quotient is exact for max-min sharing, so the run is the full run's result; with no
// symmetry kept (`use_symmetry` false, or a traffic no symmetry keeps) every router pair is a
// class of its own, the run the exact flow-level one at the routers' level.
//  - all-to-all: every endpoint sends `bytes_per_pair` to every other of its group (consecutive
//    endpoints, `group_endpoints` of them, a whole number of routers or a whole fraction of each
//    router's endpoints; 0: all of them): an EP group's dispatch or combine, or the whole fabric's;
//  - ring step: every endpoint sends `bytes_per_pair` to the next of its ring (consecutive
//    endpoints; 0: one ring of all), the last to the first: one step of a ring all-gather or
//    reduce-scatter, the same for each of a ring's steps;
//  - shift: every endpoint sends `bytes_per_pair` to the endpoint `group_endpoints` further on
//    (around the end): a pipeline's sends from each stage to the next;
//  - tree: NCCL's double binary tree over each group's endpoints (net/scale/double_tree), a
//    flow each way on every edge of both trees at once, `bytes_per_pair` each: a tree
//    all-reduce's pipelined steady state, half the buffer down each tree;
//  - several at once (`also`): a training step's EP, PP and DP traffic in one run, sharing links.
// UGAL on Slim Fly and Dragonfly: each flow's minimal share and Valiant share are classes of
// their own, the run repeated at each share net/ugal_share tries, the one that ends soonest kept.
// ECMP on fat trees: a hash of its endpoints puts each flow on one path, which no class of flows
// keeps: every flow is hashed and counted instead (net/scale/counted_traffic), one traffic at a
// time; so is d-mod-k with a fault.
// Endpoints are numbered router by router, as the graph's builder adds them.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "net/scale/scale_fabric.hpp"

namespace net {

enum class ScaleTraffic { kAllToAll, kRingStep, kShift, kTree };

struct ScaleTrafficPart {
  ScaleTraffic kind = ScaleTraffic::kAllToAll;
  long long group_endpoints = 0;
  double bytes_per_pair = 0;
};

struct ScaleTrafficSpec {
  ScaleTraffic kind = ScaleTraffic::kAllToAll;
  long long group_endpoints = 0;  // 0: one group of every endpoint
  double bytes_per_pair = 0;
  double endpoint_Bps = 50e9;          // each endpoint's link to its router, per direction
  double switch_Bps = 50e9;            // each switch-to-switch link, per direction
  std::vector<ScaleTrafficPart> also;  // more traffic in the same run
  bool use_symmetry = true;
  // Degraded switch links: (link, the fraction of its bandwidth it keeps, in (0, 1]). Routing does
  // not change (static splits). A symmetry that moves a degraded link onto one of another
  // bandwidth is not kept, so the fault is simulated exactly, as every class it leaves. On fat
  // trees under spraying, ECMP and d-mod-k (static too: its flows counted one by one, as the
  // destination's port that routes them is merged in the classes); adaptive routing would move
  // traffic off the fault (refused). ECMP over several planes (ecmp_planes): plane 0's links.
  std::vector<std::pair<int, double>> link_fractions;
  double max_bytes = 8.0 * (1LL << 30);  // classes that would need more are refused before they are made
  // ECMP on an MPFT's plane: how many planes there are, each hashing with its own seed (its NICs'
  // addresses differ), each counted; the run is the longest plane's. Other routings carry alike
  // in every plane, and one is simulated.
  int ecmp_planes = 1;
};

struct ScaleRun {
  double seconds = 0;
  std::vector<double> part_seconds;  // when each part's last flow ends: the first traffic's, then `also`'s in order
  double flows = 0;                  // endpoint to endpoint flows the run stands for
  std::size_t flow_classes = 0;      // simulated
  std::size_t link_classes = 0;
  std::size_t source_routers = 0;  // routers whose flows were routed (one per orbit)
  std::size_t symmetries = 0;      // generators kept (those that keep the traffic)
  std::size_t rate_solves = 0;
  double classes_s = 0, solve_s = 0;  // wall time
  std::string method;                 // how the flows were grouped, for the report
  // ECMP: the flows of the busiest switch link (of the longest plane), and the mean over the
  // switch links that carry any.
  double busiest_link_flows = 0, mean_link_flows = 0;
  // UGAL (net/ugal_share): the share of each flow's bytes over Valiant's paths, and the shares
  // simulated to choose it (each a run of the classes).
  double valiant_share = 0;
  std::size_t shares_tried = 0;
};

// Throws core::InputError naming "link_fractions" for a fault on a fat tree routed adaptive, a link that is
// no switch link or a fraction outside (0, 1]; "group_endpoints" for groups that are not whole routers or do
// not divide the endpoints, "classes" for classes past max_bytes (with the figure), and "also" for more
// traffic beside ECMP's or beside a fault under d-mod-k.
ScaleRun simulate_scale_traffic(const ScaleFabric& fabric, const ScaleTrafficSpec& spec);

}  // namespace net
