#include <catch2/catch.hpp>
#include <random>

#include "core/engine.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/latency_model.hpp"
#include "studies/run/scenario.hpp"

using namespace net;

namespace {

double one_way_s(const Platform& p, int a, int b, double bytes) {
  core::TaskGraph g;
  const auto ping = g.add_transfer("ping", a, "comm", {{a, b, bytes}}, {});
  g.add_transfer("pong", b, "comm", {{b, a, bytes}}, {ping});
  return core::simulate(p, g).makespan_s() / 2;
}

}  // namespace

TEST_CASE("A ping-pong through the engine takes the per-hop model's latency plus one serialisation", "[latency]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> ns(0, 2000), metres(0, 100);
  for (int trial = 0; trial < 20; ++trial) {
    HopLatencies h;
    h.endpoint_s = ns(rng) * 1e-9;
    h.switch_s = ns(rng) * 1e-9;
    h.endpoint_cable_m = metres(rng);
    h.switch_cable_m = metres(rng);
    const LinkLatencies links = link_latencies(h);
    const double bytes = 64, Bps = 50e9;
    FabricSpec s;
    s.radix = 8;
    s.gpus_per_node = 1;
    s.nodes = 5;  // node 4 is the first under the second leaf
    s.nic_Bps = s.switch_link_Bps = Bps;
    s.nic_latency_s = links.endpoint_link_s;
    s.switch_link_latency_s = links.switch_link_s;
    const FabricPlatform fabric(s);
    CHECK(one_way_s(fabric, 0, 1, bytes) == Approx(route_latency_s(h, 1) + bytes / Bps).epsilon(1e-9));
    CHECK(one_way_s(fabric, 0, 4, bytes) == Approx(route_latency_s(h, 3) + bytes / Bps).epsilon(1e-9));
    const GraphPlatform ft3(fat_tree_3(4), {Bps, Bps, links.endpoint_link_s, links.switch_link_s}, Routing::kDModK);
    CHECK(one_way_s(ft3, 0, ft3.gpus() - 1, bytes) == Approx(route_latency_s(h, 5) + bytes / Bps).epsilon(1e-9));
  }
}

TEST_CASE("Each switch and cable a route adds costs the model's per-hop latency", "[latency]") {
  HopLatencies h;
  h.endpoint_s = 1e-6;
  h.switch_s = 100e-9;
  h.endpoint_cable_m = 2;
  h.switch_cable_m = 20;
  CHECK(route_latency_s(h, 1) == Approx(2e-6 + 2 * 10e-9 + 100e-9));
  CHECK(route_latency_s(h, 3) - route_latency_s(h, 1) == Approx(2 * (100e-9 + 100e-9)));
}

TEST_CASE("Table 5 scenario: cross-leaf minus same-leaf is two switches and two leaf-to-spine cables",
          "[latency][scenario]") {
  const auto report = studies::load_scenario("scenarios/paper/latency.json").run({});
  auto ours = [&](const std::string& id) {
    for (const auto& r : report.rows)
      if (r.id == id) return r.ours;
    FAIL("no row " << id);
    return 0.0;
  };
  CHECK(ours("InfiniBand/cross_leaf") - ours("InfiniBand/same_leaf") == Approx(2 * (0.130 + 0.150)));
  CHECK(ours("RoCE/cross_leaf") - ours("RoCE/same_leaf") == Approx(2 * (0.600 + 0.150)));
  CHECK(ours("InfiniBand/cross_pod") > ours("InfiniBand/cross_leaf"));
  CHECK(ours("InfiniBand/same_leaf") < ours("RoCE/same_leaf"));
}
