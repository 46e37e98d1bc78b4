#pragma once
// What the engine simulates on: a SimGrid platform of GPU hosts with routes between them.
// Implementations build the zone, hosts and links inside a live simgrid::s4u::Engine, and add a
// route only for the (src, dst) GPU pairs the work uses: a full table is quadratic in the GPUs.
#include <set>
#include <utility>
#include <vector>

#include "net/cluster.hpp"

namespace simgrid::s4u {
class Host;
}

namespace net {

using RoutePairs = std::set<std::pair<int, int>>;

class Platform {
 public:
  virtual ~Platform() = default;
  virtual int gpus() const = 0;
  virtual double gpu_flops_per_s() const = 0;
  virtual std::vector<simgrid::s4u::Host*> build(const RoutePairs& pairs) const = 0;
};

// Nodes as NVLink stars, one NIC per GPU into a non-blocking fabric. A route inside a node is
// [scale-up of src (up), scale-up of dst (down)]; between nodes it is [NIC of src (up), NIC of
// dst (down)]. Each link carries half of the path's end-to-end latency.
class StarPlatform : public Platform {
 public:
  explicit StarPlatform(Cluster cluster) : cluster_(cluster) {}
  int gpus() const override { return cluster_.gpus(); }
  double gpu_flops_per_s() const override { return cluster_.gpu_flops_per_s; }
  std::vector<simgrid::s4u::Host*> build(const RoutePairs& pairs) const override;

 private:
  Cluster cluster_;
};

}  // namespace net
