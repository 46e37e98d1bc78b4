#pragma once
// Classes of flows that share their path sets and rates, simulated once (max-min fluid sharing,
// as the fluid engine shares links). A link class stands for `links` links of one bandwidth that
// a symmetry of the fabric maps onto each other (an orbit); a flow class for `flows` flows that
// it maps onto each other, each sending `bytes_per_flow` from time 0. `use` says, for one flow of
// the class, how many of its hops fall in each link class (fractions where a flow is split over
// paths: spraying, Valiant). Together the class loads its link class with flows x use x rate,
// spread evenly over the class's links by the symmetry, so a link class saturates when
//   sum over flow classes of flows x use x rate = links x Bps_per_link,
// and the flows crossing it stop rising there. The max-min allocation is unique, hence invariant
// under the fabric's symmetries: every flow of a class has the same rate, and the quotient is
// exact, not an approximation.
#include <cstddef>
#include <utility>
#include <vector>

namespace net {

struct LinkClass {
  double Bps_per_link = 0;
  double links = 1;
};

struct FlowClass {
  double flows = 1;
  double bytes_per_flow = 0;
  std::vector<std::pair<int, double>> use;  // (link class, hops of one flow in it); a class at most once
};

struct ClassRun {
  double makespan_s = 0;
  std::vector<double> finish_s;  // per flow class
  std::size_t rate_solves = 0;   // water-fillings: one per instant at which classes end
};

// Throws std::invalid_argument for a link class of no bandwidth that a class uses, or a use of
// a link class that does not exist.
ClassRun simulate_classes(const std::vector<LinkClass>& links, const std::vector<FlowClass>& flows);

}  // namespace net
