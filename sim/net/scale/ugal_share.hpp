#pragma once
// UGAL (Universal Globally-Adaptive Load-balanced routing) in the fluid limit, for
// net/scale_traffic on Slim Fly and Dragonfly: every flow sends a share of its bytes over its
// minimal paths and the rest over Valiant's (through every router evenly), each share a flow of
// its own in the max-min sharing, as a flow's packets on either path set go at what that path set
// gives them. UGAL picks per packet the path set whose queue (times its hops) is shorter, so in
// the fluid limit traffic moves to Valiant's paths until moving more either way would make the
// collective end later: the share that minimises its completion. One share for every flow of a
// run: the flows of a uniform all-to-all, or of a shift, face the same choice; for mixed traffic
// (a step's EP, PP and DP at once) a choice per flow class could only end sooner.
#include <cstddef>
#include <functional>

namespace net {

struct UgalShare {
  double valiant_share = 0;  // of each flow's bytes, over Valiant's paths
  double completion_s = 0;   // the collective's, at that share
  std::size_t tried = 0;     // shares simulated
};

// The share in [0, 1] at which `completion_s(share)` is least: all minimal (0), all Valiant (1),
// and a golden-section search between them to within kUgalShareTolerance (completion falls, then
// rises, as traffic leaves the minimal paths' bottleneck and loads Valiant's longer paths); the
// best share tried, so never later than minimal routing or Valiant's.
inline constexpr double kUgalShareTolerance = 1e-3;
UgalShare ugal_valiant_share(const std::function<double(double share)>& completion_s);

}  // namespace net
