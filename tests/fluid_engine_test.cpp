#include <catch2/catch.hpp>

#include <random>

#include "core/simgrid_engine.hpp"
#include "core/fluid_engine.hpp"
#include "net/alltoall.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/platform.hpp"
#include "net/ring.hpp"
#include "net/topology.hpp"

namespace {

// Every task's start and end, fluid against SimGrid flow by flow, within `rel` of the makespan.
void check_same_spans(const core::Platform& platform, const core::TaskGraph& graph, double rel) {
  const auto reference = core::simulate_simgrid(platform, graph);
  const auto fluid = core::simulate_fluid(platform, graph);
  const double tolerance = rel * reference.makespan_s();
  REQUIRE(reference.makespan_s() > 0);
  CHECK(fluid.makespan_s() == Approx(reference.makespan_s()).epsilon(rel));
  for (std::size_t i = 0; i < graph.tasks().size(); ++i) {
    INFO("task " << i << " '" << graph.name(graph.tasks()[i]) << "'");
    CHECK(std::abs(fluid.spans()[i].start_s - reference.spans()[i].start_s) <= tolerance);
    CHECK(std::abs(fluid.spans()[i].end_s - reference.spans()[i].end_s) <= tolerance);
  }
}

net::FabricSpec fabric(net::FabricKind kind, int nodes, net::Routing routing, int radix = 16,
                       core::Sharing sharing = core::Sharing::kMaxMin) {
  net::FabricSpec s;
  s.sharing = sharing;
  s.kind = kind;
  s.routing = routing;
  s.nodes = nodes;
  s.gpus_per_node = 8;
  s.radix = radix;
  s.nvlink_latency_s = 0.5e-6;  // latencies delay flows, and weight them where sharing is latency-weighted
  s.nic_latency_s = 1e-6;
  s.switch_link_latency_s = 0.3e-6;
  return s;
}

// Random all-to-allv: each GPU's tokens to experts drawn at random, so every pair differs.
std::vector<std::vector<double>> random_matrix(int gpus, unsigned seed) {
  std::mt19937 rng(seed);
  std::gamma_distribution<double> load(2.0, 1.0);
  std::vector<std::vector<double>> bytes(gpus, std::vector<double>(gpus, 0));
  for (int s = 0; s < gpus; ++s)
    for (int d = 0; d < gpus; ++d)
      if (s != d) bytes[s][d] = std::floor(load(rng) * 64 * 7168);  // tokens of 7,168 bytes
  return bytes;
}

}  // namespace

TEST_CASE("fluid engine: compute, transfers and streams as SimGrid runs them", "[fluid]") {
  const net::Cluster c{.nodes = 2,
                       .gpus_per_node = 2,
                       .gpu_flops_per_s = 1e15,
                       .scale_up_Bps = 100e9,
                       .scale_up_latency_s = 1e-6,
                       .scale_out_Bps = 10e9,
                       .scale_out_latency_s = 3e-6};
  core::TaskGraph g;
  const auto a = g.add_compute("a", 0, "compute", 1e-3, {});
  const auto t = g.add_transfer("t", 0, "comm", {{0, 2, 10e6}, {0, 3, 5e6}, {0, 1, 40e6}}, {a});
  const auto u = g.add_transfer("u", 1, "comm", {{1, 2, 10e6}}, {});
  const auto b = g.add_compute("b", 2, "compute", 2e-3, {t});
  g.add_compute("b2", 2, "compute", 0, {u});  // same stream: waits for b
  const auto j = g.add_join("j", {b, u});
  g.add_transfer("empty", 3, "comm", {}, {j});
  g.add_transfer("zero", 3, "comm", {{3, 0, 0}}, {j});
  const net::StarPlatform platform(c);
  check_same_spans(platform, g, 1e-3);
  const auto fluid = core::simulate_fluid(platform, g);
  // 10 MB and 5 MB leave one 10 GB/s NIC together: 5 MB at 5 GB/s, then the rest alone.
  CHECK(fluid.span(t).end_s == Approx(1e-3 + 3e-6 + 1e-3 + 0.5e-3));
}

TEST_CASE("a flow with a count is that many flows, each with its own share", "[fluid]") {
  const net::Cluster c{.nodes = 2,
                       .gpus_per_node = 2,
                       .gpu_flops_per_s = 1e15,
                       .scale_up_Bps = 100e9,
                       .scale_up_latency_s = 1e-6,
                       .scale_out_Bps = 10e9,
                       .scale_out_latency_s = 3e-6};
  const net::StarPlatform platform(c);
  // Three flows 0 -> 2 against one 1 -> 2 into GPU 2's NIC: 3/4 of it, not 1/2.
  core::TaskGraph counted, expanded;
  const auto t = counted.add_transfer("three", 0, "comm", {{0, 2, 10e6, 3}}, {});
  const auto u = counted.add_transfer("one", 1, "comm", {{1, 2, 10e6}}, {});
  expanded.add_transfer("three", 0, "comm", {{0, 2, 10e6}, {0, 2, 10e6}, {0, 2, 10e6}}, {});
  expanded.add_transfer("one", 1, "comm", {{1, 2, 10e6}}, {});
  CHECK(counted.flow_count() == 4);
  for (const auto& timeline : {core::simulate_fluid(platform, counted), core::simulate_simgrid(platform, counted)}) {
    const auto reference = core::simulate_fluid(platform, expanded);
    CHECK(timeline.span(t).end_s == Approx(reference.span(0).end_s).epsilon(1e-6));
    CHECK(timeline.span(u).end_s == Approx(reference.span(1).end_s).epsilon(1e-6));
    CHECK(timeline.span(t).end_s == Approx(3e-6 + 40e6 / 10e9).epsilon(1e-6));  // GPU 2's NIC carries all 40 MB
  }
  check_same_spans(platform, counted, 1e-3);
  CHECK_THROWS(counted.add_transfer("none", 0, "comm", {{0, 2, 1e6, 0}}, {}));
}

TEST_CASE("fluid engine: random task graphs agree with SimGrid flow by flow", "[fluid]") {
  const net::Cluster c{.nodes = 4,
                       .gpus_per_node = 4,
                       .gpu_flops_per_s = 1e15,
                       .scale_up_Bps = 150e9,
                       .scale_up_latency_s = 2e-6,
                       .scale_out_Bps = 40e9,
                       .scale_out_latency_s = 4e-6};
  const net::StarPlatform platform(c);
  for (unsigned seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> rank(0, c.gpus() - 1), count(1, 6);
    std::uniform_real_distribution<double> bytes(1e3, 50e6), seconds(0, 1e-3);
    core::TaskGraph g;
    for (int i = 0; i < 60; ++i) {
      std::vector<core::TaskId> deps;
      if (i > 0)
        for (int d = 0; d < 2; ++d) deps.push_back(std::uniform_int_distribution<int>(0, i - 1)(rng));
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      const int r = rank(rng);
      if (rng() % 2 == 0) {
        g.add_compute("c" + std::to_string(i), r, "compute", seconds(rng), deps);
      } else {
        std::vector<core::Flow> flows;
        for (int k = count(rng); k > 0; --k) {
          int dst = rank(rng);
          if (dst == r) dst = (dst + 1) % c.gpus();
          flows.push_back({r, dst, std::floor(bytes(rng))});
        }
        g.add_transfer("t" + std::to_string(i), r, "comm", flows, deps);
      }
    }
    INFO("seed " << seed);
    check_same_spans(platform, g, 1e-3);
  }
}

TEST_CASE("fluid engine: all-to-all on MPFT and MRFT under every routing, 128 and 256 GPUs", "[fluid][slow]") {
  for (auto kind : {net::FabricKind::kMultiPlane, net::FabricKind::kMultiRail})
    for (auto routing : {net::Routing::kDModK, net::Routing::kEcmp, net::Routing::kAdaptive, net::Routing::kSpray})
      for (int nodes : {16, 32})
        for (auto sharing : {core::Sharing::kMaxMin, core::Sharing::kLatencyWeighted}) {
          if (sharing == core::Sharing::kLatencyWeighted && nodes == 32) continue;
          const auto spec = fabric(kind, nodes, routing, nodes == 16 ? 16 : 32, sharing);
          INFO("fabric " << int(kind) << " routing " << int(routing) << " nodes " << nodes << " sharing "
                         << int(sharing));
          const net::FabricPlatform platform(spec);
          check_same_spans(platform, net::alltoall_graph({nodes, 8, 1 << 20, true, true, {}}), 1e-3);
        }
}

TEST_CASE("fluid engine: MoE-like all-to-allv with random matrices", "[fluid][slow]") {
  for (auto routing : {net::Routing::kDModK, net::Routing::kEcmp})
    for (auto sharing : {core::Sharing::kMaxMin, core::Sharing::kLatencyWeighted}) {
      const net::FabricPlatform platform(fabric(net::FabricKind::kMultiRail, 16, routing, 16, sharing));
      for (unsigned seed : {7u, 8u}) {
        net::AllToAllSpec a{16, 8, 0, true, true, random_matrix(128, seed)};
        INFO("routing " << int(routing) << " seed " << seed << " sharing " << int(sharing));
        check_same_spans(platform, net::alltoall_graph(a), 1e-3);
      }
    }
}

TEST_CASE("max-min sharing gives a NIC's flows equal shares, whatever their routes' latency", "[fluid]") {
  // GPU 0 sends 1 MB through its NIC to a GPU under its own leaf (2 us of latency) and to one
  // under another leaf (2.6 us): max-min splits the NIC evenly, so they end together but for
  // the latencies' 0.6 us; weighted by the inverse of their latency, the short route takes
  // 2.6 / 4.6 of the NIC and ends about 5 us before the other. Both engines agree on both.
  for (auto sharing : {core::Sharing::kMaxMin, core::Sharing::kLatencyWeighted}) {
    const net::FabricPlatform mrft(fabric(net::FabricKind::kMultiRail, 16, net::Routing::kDModK, 16, sharing));
    core::TaskGraph g;  // 8 nodes under each leaf of 16 ports
    const auto near = g.add_transfer("same leaf", 0, "a", {{0, 8, 1e6}}, {});
    const auto far = g.add_transfer("other leaf", 0, "b", {{0, 64, 1e6}}, {});
    g.add_join("done", {near, far});
    const auto t = core::simulate_fluid(mrft, g);
    const double gap_s = t.span(far).end_s - t.span(near).end_s;
    INFO("sharing " << int(sharing) << " gap " << gap_s);
    if (sharing == core::Sharing::kMaxMin) {
      CHECK(gap_s == Approx(0.6e-6).margin(0.05e-6));
    } else {
      CHECK(gap_s > 4e-6);
    }
    check_same_spans(mrft, g, 1e-3);
  }
}

TEST_CASE("fluid engine: disjoint parts of the network run as if alone", "[fluid]") {
  // Two planes of an MPFT share no link: each one's all-to-allv, with its flows ending at many
  // instants, gives the same times beside the other as alone (a solve re-rates only the planes
  // whose flows changed), and the same as SimGrid.
  const net::FabricPlatform mpft(fabric(net::FabricKind::kMultiPlane, 4, net::Routing::kEcmp, 4));
  const auto bytes = random_matrix(32, 7);
  auto plane_graph = [&](std::vector<int> planes) {
    core::TaskGraph g;
    std::vector<core::TaskId> all;
    for (int p : planes)
      for (int a = 0; a < 4; ++a) {
        std::vector<core::Flow> flows;
        for (int b = 0; b < 4; ++b)
          if (a != b) flows.push_back({a * 8 + p, b * 8 + p, bytes[a * 8 + p][b * 8 + p]});
        all.push_back(g.add_transfer("plane " + std::to_string(p), a * 8 + p, "net", std::move(flows), {}));
      }
    g.add_join("done", all);
    return g;
  };
  const auto both = core::simulate_fluid(mpft, plane_graph({0, 1}));
  const auto first = core::simulate_fluid(mpft, plane_graph({0}));
  const auto second = core::simulate_fluid(mpft, plane_graph({1}));
  // Within the engine's merge of nearby ends (3e-4 of a flow's time in the network): the other
  // plane's instants let a flow's end be caught a little earlier.
  for (int i = 0; i < 4; ++i) {
    CHECK(both.span(i).end_s == Approx(first.span(i).end_s).epsilon(3e-4));
    CHECK(both.span(4 + i).end_s == Approx(second.span(i).end_s).epsilon(3e-4));
  }
  check_same_spans(mpft, plane_graph({0, 1}), 1e-3);
}

TEST_CASE("fluid engine: rings on a Slim Fly graph", "[fluid]") {
  const net::GraphPlatform platform(net::slim_fly(5), {50e9, 50e9, 1e-6, 0.3e-6}, net::Routing::kEcmp);
  std::vector<net::Ring> rings = {{0, 7, 13, 21, 30, 44}, {1, 9, 17, 25}};
  check_same_spans(platform, net::ring_graph(rings, 64e6, 2), 1e-3);
}

TEST_CASE("fluid engine on aggregated flows: within 1% of SimGrid with one flow per pair", "[fluid][slow]") {
  // The yardstick: the whole method (flows aggregated per GPU pair and stage, then the
  // fluid solve) against the plainest reference, SimGrid with every pair its own flow.
  for (auto routing : {net::Routing::kDModK, net::Routing::kEcmp}) {
    const net::FabricPlatform platform(fabric(net::FabricKind::kMultiPlane, 16, routing));
    const double fluid =
        core::simulate_fluid(platform, net::alltoall_graph({16, 8, 4e6 / 128, true, true, {}})).makespan_s();
    const double per_pair =
        core::simulate_simgrid(platform, net::alltoall_graph({16, 8, 4e6 / 128, true, false, {}})).makespan_s();
    INFO("routing " << int(routing));
    CHECK(fluid == Approx(per_pair).epsilon(0.01));
  }
}

TEST_CASE("fluid engine: re-rating from the ended flows' level gives the rates of a solve from scratch", "[fluid]") {
  // ECMP's collisions give the flows of an all-to-allv many rates and many ends, each end a
  // re-solve from its level; both sharings, with the links' latencies staggering the starts.
  for (auto sharing : {core::Sharing::kMaxMin, core::Sharing::kLatencyWeighted})
    for (unsigned seed : {3u, 4u}) {
      const net::FabricPlatform platform(fabric(net::FabricKind::kMultiPlane, 16, net::Routing::kEcmp, 16, sharing));
      const auto graph = net::alltoall_graph({16, 8, 0, true, true, random_matrix(128, seed)});
      core::SimulationStats partial, scratch;
      const auto a = core::simulate_fluid(platform, graph, &partial, core::FluidSolve::kFromEndedLevel);
      const auto b = core::simulate_fluid(platform, graph, &scratch, core::FluidSolve::kFromScratch);
      INFO("sharing " << int(sharing) << " seed " << seed);
      CHECK(partial.solves == scratch.solves);
      CHECK(partial.solves > 100);
      for (std::size_t i = 0; i < graph.tasks().size(); ++i)
        CHECK(a.spans()[i].end_s == Approx(b.spans()[i].end_s).epsilon(1e-9));
    }
}
