#include <catch2/catch.hpp>

#include "core/fluid_engine.hpp"
#include "core/input_error.hpp"
#include "core/simgrid_engine.hpp"

namespace {

// Two GPUs and two parallel links of 10 GB/s, A (link 0) and B (link 1); GPU 0 -> GPU 1 takes A
// until the changes say otherwise.
class TwoPaths : public core::Platform {
 public:
  std::vector<core::NetworkChange> changes;
  int gpus() const override { return 3; }
  double gpu_flops_per_s() const override { return 1e15; }
  core::Network network(const core::RoutePairs& pairs) const override {
    core::Network net;
    net.add_link(10e9, 0);
    net.add_link(10e9, 0);
    for (const auto& [s, d] : pairs) net.add_route(s, d, {s == 2 ? 1 : 0});  // GPU 2 -> 1 takes B
    for (const auto& c : changes) net.add_change(c);
    return net;
  }
};

core::TaskGraph one_transfer(double bytes, int src = 0) {
  core::TaskGraph g;
  g.add_transfer("send", src, "comm", {{src, 1, bytes}}, {});
  return g;
}

}  // namespace

TEST_CASE("network change: a link slowed mid-flow slows what is left", "[fluid][faults]") {
  TwoPaths p;
  p.changes.push_back({0.5, {{0, 2.5e9}}, {}});  // at 0.5 s, A at a quarter
  // 10 GB: 5 GB in the first 0.5 s, the other 5 GB at 2.5 GB/s take 2 s.
  CHECK(core::simulate_fluid(p, one_transfer(10e9)).makespan_s() == Approx(2.5));
}

TEST_CASE("network change: a flow stalls on a dead link until it is rerouted", "[fluid][faults]") {
  TwoPaths p;
  p.changes.push_back({0.5, {{0, 0.0}}, {}});  // A dies at 0.5 s
  p.changes.push_back({2.0, {}, {{0, {1}}}});  // at 2 s routing moves GPU 0 -> 1 to B
  // 5 GB before the fault, nothing for 1.5 s, then 5 GB on B: 2.5 s.
  CHECK(core::simulate_fluid(p, one_transfer(10e9)).makespan_s() == Approx(2.5));
}

TEST_CASE("network change: a moved flow shares its new link with the flow already there", "[fluid][faults]") {
  TwoPaths p;
  p.changes.push_back({0.0 + 1.0, {}, {{0, {1}}}});  // at 1 s GPU 0 -> 1 moves onto B
  core::TaskGraph g;
  g.add_transfer("a", 0, "comm", {{0, 1, 20e9}}, {});
  g.add_transfer("b", 2, "comm", {{2, 1, 20e9}}, {});
  const auto t = core::simulate_fluid(p, g);
  // Both have 10 GB left at 1 s and share B at 5 GB/s each: both end at 3 s.
  CHECK(t.spans()[0].end_s == Approx(3.0));
  CHECK(t.spans()[1].end_s == Approx(3.0));
}

TEST_CASE("network change: a link restored gives back its bandwidth, and SimGrid refuses changes", "[fluid][faults]") {
  TwoPaths p;
  p.changes.push_back({0.5, {{0, 5e9}}, {}});
  p.changes.push_back({1.5, {{0, 10e9}}, {}});
  // 5 GB by 0.5 s, 5 GB by 1.5 s, 10 GB more at 10 GB/s: 2.5 s.
  CHECK(core::simulate_fluid(p, one_transfer(20e9)).makespan_s() == Approx(2.5));
  CHECK_THROWS_AS(core::simulate_simgrid(p, one_transfer(20e9)), core::InputError);
}
