#pragma once
// What the engine simulates on: a SimGrid platform of GPU hosts with links and routes between
// them. Implementations (net/) build the zone, hosts and links inside a live
// simgrid::s4u::Engine, and add a route only for the (src, dst) GPU pairs the work uses: a full
// table is quadratic in the GPUs.
#include <set>
#include <utility>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace core {

using RoutePairs = std::set<std::pair<int, int>>;

class Platform {
 public:
  virtual ~Platform() = default;
  virtual int gpus() const = 0;
  virtual double gpu_flops_per_s() const = 0;
  // The hosts, GPU by GPU, with a route for each pair in `pairs`.
  virtual std::vector<simgrid::s4u::Host*> build(const RoutePairs& pairs) const = 0;
};

}  // namespace core
