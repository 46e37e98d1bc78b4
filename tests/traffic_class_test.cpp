#include <catch2/catch.hpp>

#include "core/fluid_engine.hpp"
#include "core/input_error.hpp"
#include "core/simgrid_engine.hpp"
#include "net/traffic_class.hpp"

namespace {

// Four GPUs; 0 -> 2 and 1 -> 3 both cross one 10 GB/s link (and a link of their own after it).
class OneBottleneck : public core::Platform {
 public:
  int gpus() const override { return 4; }
  double gpu_flops_per_s() const override { return 1e15; }
  core::Network network(const core::RoutePairs& pairs) const override {
    core::Network net;
    const int shared = net.add_link(10e9, 0);
    for (const auto& [s, d] : pairs) net.add_route(s, d, {shared, net.add_link(100e9, 0)});
    return net;
  }
};

core::TaskGraph two_flows(double bytes_a, double bytes_b) {
  core::TaskGraph g;
  g.add_transfer("a", 0, "comm", {{0, 2, bytes_a}}, {});
  g.add_transfer("b", 1, "comm", {{1, 3, bytes_b}}, {});
  return g;
}

}  // namespace

TEST_CASE("traffic classes: weights share a link in proportion, a reserved share is the class's alone",
          "[traffic-class][fluid]") {
  const OneBottleneck base;
  const auto g = two_flows(10e9, 10e9);
  // Plain sharing: 5 GB/s each, both end at 2 s.
  CHECK(core::simulate_fluid(base, g).span(0).end_s == Approx(2.0));

  // Weights 3:1 for GPU 0's class: 7.5 and 2.5 GB/s; a ends at 4/3 s, then b has the link.
  const net::TrafficClassPlatform weighted(base, {{"hi", 3, 0}, {"lo", 1, 0}}, {0, 1, 0, 1});
  const auto w = core::simulate_fluid(weighted, g);
  CHECK(w.span(0).end_s == Approx(10.0 / 7.5));
  CHECK(w.span(1).end_s == Approx(10.0 / 7.5 + (10 - 2.5 * 10.0 / 7.5) / 10));

  // GPU 1's class reserves 20%: it has 2 GB/s, used or not; the other class 8 GB/s.
  const net::TrafficClassPlatform reserved(base, {{"rest", 1, 0}, {"kept", 1, 0.2}}, {0, 1, 0, 1});
  const auto r = core::simulate_fluid(reserved, g);
  CHECK(r.span(0).end_s == Approx(10.0 / 8));
  CHECK(r.span(1).end_s == Approx(10.0 / 2));
  CHECK(core::simulate_fluid(reserved, two_flows(10e9, 0)).span(0).end_s ==
        Approx(10.0 / 8));  // idle reservation is lost

  // SimGrid weights no flow: refused, not silently unweighted.
  CHECK_THROWS_AS(core::simulate_simgrid(weighted, g), core::InputError);
  CHECK(core::simulate_simgrid(reserved, g).span(1).end_s == Approx(5.0).epsilon(1e-6));
}
