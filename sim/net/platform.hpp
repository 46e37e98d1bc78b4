#pragma once
// The simplest platform the engine runs on: a Cluster's nodes with a non-blocking fabric.
#include <vector>

#include "core/platform.hpp"
#include "net/cluster.hpp"

namespace net {

using core::Platform;
using core::RoutePairs;

// Nodes as NVLink stars, one NIC per GPU into a non-blocking fabric. A route inside a node is
// [scale-up of src (up), scale-up of dst (down)]; between nodes it is [NIC of src (up), NIC of
// dst (down)]. Each link carries half of the path's end-to-end latency.
class StarPlatform : public Platform {
 public:
  explicit StarPlatform(Cluster cluster) : cluster_(cluster) {}
  int gpus() const override { return cluster_.gpus(); }
  double gpu_flops_per_s() const override { return cluster_.gpu_flops_per_s; }
  core::Network network(const RoutePairs& pairs) const override;

 private:
  Cluster cluster_;
};

}  // namespace net
