#pragma once
// Traffic classes on a shared fabric (ISCA'25 §6.3 asks for isolation between concurrent
// traffic, e.g. by virtual queues): each GPU's traffic belongs to a class, which has
//  - a weight: on every link, flows share what is left to the unreserved classes in proportion
//    to their class's weight (weighted max-min, as an InfiniBand VL arbiter's weights or a
//    switch's weighted round-robin between queues give in the fluid limit), and
//  - optionally a reserved share: that fraction of every link is the class's alone, used or
//    not (a strict partition, as a dedicated virtual lane with its own credits).
// Without classes every flow has an equal share: plain sharing.
#include <memory>
#include <string>
#include <vector>

#include "core/platform.hpp"

namespace net {

struct TrafficClass {
  std::string name;
  double weight = 1;
  double reserved_share = 0;  // of every link, in [0, 1)
};

// `base`'s links and routes, with each route's traffic in its source GPU's class.
class TrafficClassPlatform : public core::Platform {
 public:
  TrafficClassPlatform(const core::Platform& base, std::vector<TrafficClass> classes, std::vector<int> class_of_gpu);
  int gpus() const override { return base_.gpus(); }
  double gpu_flops_per_s() const override { return base_.gpu_flops_per_s(); }
  core::Network network(const core::RoutePairs& pairs) const override;

 private:
  const core::Platform& base_;
  std::vector<TrafficClass> classes_;
  std::vector<int> class_of_gpu_;
};

}  // namespace net
