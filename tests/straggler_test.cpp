#include <catch2/catch.hpp>

#include "core/fluid_engine.hpp"
#include "core/simgrid_engine.hpp"
#include "workload/training/collective_waits.hpp"

namespace {

// Four GPUs, each pair joined by a route of its own 10 GB/s link.
class FourGpus : public core::Platform {
 public:
  int gpus() const override { return 4; }
  double gpu_flops_per_s() const override { return 1e15; }
  core::Network network(const core::RoutePairs& pairs) const override {
    core::Network net;
    for (const auto& [s, d] : pairs) net.add_route(s, d, {net.add_link(10e9, 0)});
    return net;
  }
};

// Each GPU computes `compute_s`, then sends 1 GB to the next; every send meets at a barrier,
// after which each GPU computes again: one collective per round.
struct Rounds {
  core::TaskGraph graph;
  std::vector<workload::StepCollective> collectives;
};
Rounds rounds(int n, double compute_s) {
  Rounds r;
  std::vector<core::TaskId> after(4, -1);
  for (int round = 0; round < n; ++round) {
    workload::StepCollective c;
    for (int gpu = 0; gpu < 4; ++gpu) {
      std::vector<core::TaskId> deps;
      if (after[gpu] >= 0) deps.push_back(after[gpu]);
      const auto work = r.graph.add_compute("work", gpu, "compute", compute_s, deps);
      c.members.push_back(r.graph.add_transfer("send", gpu, "comm", {{gpu, (gpu + 1) % 4, 1e9}}, {work}));
    }
    c.barrier = r.graph.add_join("exchange", c.members);
    for (auto& a : after) a = c.barrier;
    r.collectives.push_back(c);
  }
  return r;
}

}  // namespace

TEST_CASE("compute slowdown: a task lasts its time before the instant and factor times it after", "[stragglers]") {
  core::ComputeSlowdowns s;
  s.add({2, 1.5, 1.0});
  CHECK(s.end_s(0, 0.5, 1.0) == Approx(1.5));              // another rank
  CHECK(s.end_s(2, 0.0, 0.5) == Approx(0.5));              // over before the slowdown
  CHECK(s.end_s(2, 2.0, 1.0) == Approx(3.5));              // all after
  CHECK(s.end_s(2, 0.5, 1.0) == Approx(1.0 + 0.5 * 1.5));  // half before, half after
  CHECK_THROWS_AS(s.add({2, 1.2, 0}), std::logic_error);
  CHECK_THROWS_AS(s.add({3, 0.9, 0}), std::logic_error);
}

TEST_CASE("stragglers: a slow GPU makes each round wait for it, by its extra compute", "[stragglers][fluid]") {
  const int n = 5;
  const double compute_s = 0.2, send_s = 0.1;  // 1 GB at 10 GB/s
  auto r = rounds(n, compute_s);
  FourGpus healthy;
  const auto base = core::simulate_fluid(healthy, r.graph);
  CHECK(base.makespan_s() == Approx(n * (compute_s + send_s)));
  for (const auto& w : workload::collective_waits(r.collectives, base)) {
    CHECK(w.mean_s == Approx(0).margin(1e-12));
    CHECK(w.gating_gpu == -1);  // nobody arrives strictly last
  }

  FourGpus slow;
  core::ComputeSlowdowns s;
  s.add({2, 1.5, 0});
  slow.set_compute_slowdowns(s);
  const auto run = core::simulate_fluid(slow, r.graph);
  CHECK(run.makespan_s() == Approx(n * (compute_s * 1.5 + send_s)));
  const auto waits = workload::collective_waits(r.collectives, run);
  REQUIRE(waits.size() == 1);
  CHECK(waits[0].name == "exchange");
  CHECK(waits[0].instances == static_cast<std::size_t>(n));
  CHECK(waits[0].mean_s == Approx(compute_s * 0.5));
  CHECK(waits[0].max_s == Approx(compute_s * 0.5));
  CHECK(waits[0].gating_gpu == 2);
  CHECK(waits[0].gated == static_cast<std::size_t>(n));

  // Slowed from mid-run: the rounds before the instant do not wait.
  FourGpus later;
  core::ComputeSlowdowns from_third;
  from_third.add({1, 2.0, 2 * (compute_s + send_s)});
  later.set_compute_slowdowns(from_third);
  const auto late = core::simulate_fluid(later, r.graph);
  CHECK(late.makespan_s() == Approx(2 * (compute_s + send_s) + (n - 2) * (2 * compute_s + send_s)));
  CHECK(workload::collective_waits(r.collectives, late)[0].gated == static_cast<std::size_t>(n - 2));
}

TEST_CASE("stragglers: SimGrid times a slow GPU as the fluid engine does", "[stragglers][simgrid]") {
  auto r = rounds(3, 0.2);
  FourGpus p;
  core::ComputeSlowdowns s;
  s.add({0, 1.25, 0.1});
  p.set_compute_slowdowns(s);
  const auto fluid = core::simulate_fluid(p, r.graph);
  const auto simgrid = core::simulate_simgrid(p, r.graph);
  CHECK(simgrid.makespan_s() == Approx(fluid.makespan_s()).epsilon(1e-6));
  for (std::size_t i = 0; i < r.graph.tasks().size(); ++i)
    CHECK(simgrid.spans()[i].end_s == Approx(fluid.spans()[i].end_s).epsilon(1e-6));
}
