#pragma once
// A fat tree's static routes flow by flow at its full size (ScaleFabric::flow_links): ECMP's,
// each flow's path a hash of its endpoints, which no symmetry keeps, so no class of flows stands
// for others; and d-mod-k's with a degraded link or a tree's flows, whose paths depend on the
// destination's port, which the classes' merged endpoints hide.
// What saves the run is that a collective's flows are all one size and start at once. Under
// max-min sharing a flow's rate is at least the least fair share (bandwidth over flows) of the
// links on its path, and a link's flows only ever fall in number, so every flow has ended by the
// time the busiest link (most flows for its bandwidth) has carried its own; and that link cannot
// carry them sooner. The run's time is exactly that link's flows x bytes / bandwidth: every flow
// hashed, its links' flows counted (on threads), nothing solved. Flows of several sizes (a
// step's traffic at once) have no such bound, and are refused.
#include "net/scale/scale_traffic.hpp"

namespace net {

// Whether simulate_scale_traffic counts a traffic of `kind` flow by flow: ECMP always (fat trees
// only route it), and d-mod-k on a fat tree with a degraded link or for a tree, where the
// destinations' ports its classes split by are not alike.
inline bool counted_flow_by_flow(ScaleRouting routing, bool fat_tree, bool degraded, ScaleTraffic kind) {
  return routing == ScaleRouting::kEcmp ||
         (fat_tree && routing == ScaleRouting::kDModK && (degraded || kind == ScaleTraffic::kTree));
}

// The fabric a fat tree routed ECMP or d-mod-k; one traffic (no `also`), in groups of any size
// that divides the endpoints; faults as link_fractions (static routes ignore them, as a switch's
// ECMP group and routing table do). Throws core::InputError naming "also", "group_endpoints" or
// "link_fractions".
ScaleRun simulate_counted_traffic(const ScaleFabric& fabric, const ScaleTrafficSpec& spec);

}  // namespace net
