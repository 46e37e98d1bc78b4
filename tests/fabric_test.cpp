#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/fabric.hpp"
#include "net/ring.hpp"
#include "net/tree.hpp"

using namespace net;

namespace {

FabricSpec spec(FabricKind kind, int nodes, int radix = 8, Routing routing = Routing::kDModK) {
  FabricSpec s;
  s.kind = kind;
  s.nodes = nodes;
  s.gpus_per_node = 4;
  s.radix = radix;
  s.routing = routing;
  return s;
}

double alltoall_s(const FabricPlatform& p, bool pxn, bool aggregate, double bytes = 1e6) {
  AllToAllSpec a{p.spec().nodes, p.spec().gpus_per_node, bytes, pxn, aggregate, {}};
  return core::simulate(p, alltoall_graph(a)).makespan_s();
}

}  // namespace

TEST_CASE("MPFT keeps each NIC index on its own plane; MRFT puts rails under shared spines", "[fabric]") {
  const FabricPlatform mpft(spec(FabricKind::kMultiPlane, 8));  // radix 8: 4 nodes per leaf, 2 leaves per plane
  const auto c = count(mpft.graph());
  CHECK(c.endpoints == 32);
  CHECK(c.switches == 4 * (2 + 4));      // per plane: 2 leaves, 4 spines
  CHECK(mpft.route(0, 16).size() == 3);  // node 0 -> node 4: other leaf, via a spine of plane 0
  CHECK(mpft.route(0, 4).size() == 1);   // node 0 -> node 1, same leaf
  CHECK_THROWS_WITH(mpft.route(0, 17), Catch::Contains("different planes"));
  const FabricPlatform mrft(spec(FabricKind::kMultiRail, 8));
  CHECK(count(mrft.graph()).switches == 4 * 2 + 4);  // 8 rail leaves, 4 shared spines
  CHECK(mrft.route(0, 17).size() == 3);              // across rails: leaf, spine, leaf
}

TEST_CASE("routing policies choose spines as documented", "[fabric]") {
  const FabricPlatform dmodk(spec(FabricKind::kMultiRail, 8));
  CHECK(dmodk.route(0, 17)[1] == dmodk.route(1, 17)[1]);  // d-mod-k: the destination decides
  CHECK(dmodk.route(0, 17)[1] != dmodk.route(0, 21)[1]);  // ... by its node
  const FabricPlatform adaptive(spec(FabricKind::kMultiRail, 8, 8, Routing::kAdaptive));
  std::map<VertexId, int> uses;
  for (int dst : {17, 21, 25, 29}) ++uses[adaptive.route(0, dst)[1]];  // four routes out of one leaf
  CHECK(uses.size() == 4);                                             // adaptive spreads them over the four spines
}

TEST_CASE("MPFT and MRFT give the same all-to-all with PXN", "[fabric]") {
  const FabricPlatform mpft(spec(FabricKind::kMultiPlane, 8)), mrft(spec(FabricKind::kMultiRail, 8));
  CHECK(alltoall_s(mpft, true, true) == Approx(alltoall_s(mrft, true, true)).epsilon(1e-9));
}

TEST_CASE("aggregated flows agree with one flow per pair within 2% on 128 GPUs", "[fabric][slow]") {
  FabricSpec s;  // 16 nodes of 8 GPUs, 64-port switches
  s.nodes = 16;
  const FabricPlatform mpft(s);
  const double aggregated = alltoall_s(mpft, true, true, 4e6);
  const double per_pair = alltoall_s(mpft, true, false, 4e6);
  CHECK(aggregated == Approx(per_pair).epsilon(0.02));
  // Without PXN on a multi-rail tree the cross-rail traffic shares the spines.
  s.kind = FabricKind::kMultiRail;
  s.radix = 16;  // 8 nodes per leaf: cross-leaf traffic
  const FabricPlatform mrft(s);
  CHECK(alltoall_s(mrft, false, true, 4e6) == Approx(alltoall_s(mrft, false, false, 4e6)).epsilon(0.02));
}

TEST_CASE("all-to-all time is the busiest link's bytes over its bandwidth", "[fabric]") {
  const FabricPlatform p(spec(FabricKind::kMultiPlane, 8));
  // Each NIC carries 4 local GPUs x 7 remote nodes x 1 MB = 28 MB at 50 GB/s; NVLink carries
  // less (3 peers x (1 + 7) MB = 24 MB at 160 GB/s).
  CHECK(alltoall_s(p, true, true) == Approx(28e6 / 50e9));
  const auto bw = alltoall_bandwidth({8, 4, 1e6, true, true, {}}, 28e6 / 50e9);
  CHECK(bw.algbw_Bps == Approx(32e6 / (28e6 / 50e9)));
  CHECK(bw.busbw_Bps == Approx(bw.algbw_Bps * 31 / 32));
}

TEST_CASE("fabrics that cannot exist are refused", "[fabric]") {
  auto s = spec(FabricKind::kMultiPlane, 33, 8);  // 8-port switches: 32 nodes per plane at most
  CHECK_THROWS_WITH(check_fabric(s, "/fabric/"), Catch::StartsWith("/fabric/nodes: 33 is not allowed"));
  s = spec(FabricKind::kMultiRail, 9, 8);  // 4 rails x 3 leaves > 8 spine ports
  CHECK_THROWS_WITH(check_fabric(s, "/fabric/"), Catch::StartsWith("/fabric/nodes: 9 is not allowed"));
  s.radix = 7;
  CHECK_THROWS_WITH(check_fabric(s, "/fabric/"), Catch::StartsWith("/fabric/radix: 7 is not allowed"));
}

TEST_CASE("ring all-gather takes N - 1 steps of size / N", "[fabric]") {
  const FabricPlatform p(spec(FabricKind::kMultiRail, 8));
  std::vector<Ring> rings;
  for (int i = 0; i < 4; ++i) {
    Ring r;
    for (int n = 0; n < 8; ++n) r.push_back(n * 4 + i);
    rings.push_back(r);
  }
  const double size = 8e6;  // 1 MB per rank per step at 50 GB/s: 20 us a step
  CHECK(core::simulate(p, ring_graph(rings, size)).makespan_s() == Approx(7 * 1e6 / 50e9));
}

TEST_CASE("ECMP collides where adaptive routing spreads", "[fabric]") {
  // Rings alternating between the two leaves of each rail: every hop crosses a spine.
  auto rings_across = [](const FabricPlatform& p) {
    std::vector<Ring> rings;
    const int nodes = p.spec().nodes, gpn = p.spec().gpus_per_node;
    for (int i = 0; i < gpn; ++i) {
      Ring r;
      for (int k = 0; k < nodes; ++k) r.push_back(((k % 2) ? nodes / 2 + k / 2 : k / 2) * gpn + i);
      rings.push_back(r);
    }
    return rings;
  };
  FabricSpec s;
  s.kind = FabricKind::kMultiRail;
  s.nodes = 32;
  s.radix = 32;
  s.routing = Routing::kEcmp;
  const FabricPlatform ecmp(s);
  s.routing = Routing::kAdaptive;
  const FabricPlatform adaptive(s);
  const double t_ecmp = core::simulate(ecmp, ring_graph(rings_across(ecmp), 64e6)).makespan_s();
  const double t_adaptive = core::simulate(adaptive, ring_graph(rings_across(adaptive), 64e6)).makespan_s();
  CHECK(t_adaptive == Approx(31 * (64e6 / 32) / 50e9));  // every NIC at full rate
  CHECK(t_ecmp > 2 * t_adaptive);
  // Packet spraying spreads every flow over all spines: NIC speed too, however routes collide.
  s.routing = Routing::kSpray;
  const FabricPlatform spray(s);
  CHECK(core::simulate(spray, ring_graph(rings_across(spray), 64e6)).makespan_s() == Approx(t_adaptive));
  // With the leaf-spine links at a quarter of a NIC, what leaves a leaf goes at the leaf's
  // uplinks' summed rate: a leaf of 16 nodes on one rail has 16 NICs and 16 uplinks at 12.5 GB/s.
  s.switch_link_Bps = 50e9 / 4;
  const FabricPlatform thin(s);
  CHECK(core::simulate(thin, ring_graph(rings_across(thin), 64e6)).makespan_s() == Approx(4 * t_adaptive));
}

TEST_CASE("the symmetric all-to-all equals the full simulation", "[fabric]") {
  // One leaf; 4 and 6 full leaves (one position stands for all); 4 leaves and a partial fifth;
  // spines at half the NIC rate, so that the spine links bind. Under ECMP every plane runs alone,
  // hashing the whole fabric's GPU numbers, and so under a static table (of destination GPUs).
  // A multi-rail fat tree's rails are alike: 4 full leaves per rail, 2 and a partial third.
  const auto mpft = FabricKind::kMultiPlane, mrft = FabricKind::kMultiRail;
  for (auto routing : {Routing::kDModK, Routing::kSpray, Routing::kAdaptive, Routing::kEcmp, Routing::kStatic})
    for (auto [kind, gpn, nodes, radix, spine_Bps] : {std::tuple{mpft, 8, 16, 64, 50e9},
                                                      {mpft, 8, 32, 16, 50e9},
                                                      {mpft, 8, 48, 16, 50e9},
                                                      {mpft, 8, 36, 16, 50e9},
                                                      {mpft, 8, 36, 16, 25e9},
                                                      {mrft, 4, 32, 16, 50e9},
                                                      {mrft, 4, 20, 16, 25e9}}) {
      FabricSpec s;
      s.kind = kind;
      s.gpus_per_node = gpn;
      s.nodes = nodes;
      s.radix = radix;
      s.routing = routing;
      s.switch_link_Bps = spine_Bps;
      s.nic_latency_s = 1e-6;
      s.switch_link_latency_s = 0.28e-6;
      if (routing == Routing::kStatic &&
          nodes >
              radix /
                  2)  // plane 1's traffic to node 3 through spine 0, plane 2's to node 9 from leaf 0 through spine 1
        s.static_routes = {{3 * gpn + 1, -1, 0}, {9 * gpn + 2, 0, 1}};
      const FabricPlatform full(s);
      const double S = 1e6;
      const double expected = core::simulate(full, alltoall_graph({nodes, gpn, S, true, true, {}})).makespan_s();
      INFO((kind == mpft ? "MPFT " : "MRFT ")
           << nodes << " nodes, radix " << radix << ", spine links " << spine_Bps << " B/s, routing " << int(routing));
      CHECK(alltoall_symmetric(s, S).seconds == Approx(expected).epsilon(1e-9));
    }
}

// A spine's index among its plane's spines (they are added in order).
int spine_index(const FabricPlatform& f, net::VertexId spine) {
  int index = 0;
  for (net::VertexId v = 0; v < spine; ++v)
    index += f.graph()[v].kind == net::VertexKind::kSwitch && f.graph()[v].level == 1 &&
             f.graph()[v].plane == f.graph()[spine].plane;
  return index;
}

TEST_CASE("a plane alone routes as in the whole multi-plane fat tree", "[fabric]") {
  // Under ECMP the planes differ (the hash reads GPU numbers): each plane alone gives the same
  // all-to-all times as in the whole fabric, where the longest plane sets the makespan.
  FabricSpec s;
  s.nodes = 48;
  s.radix = 16;
  s.routing = Routing::kEcmp;
  s.gpus_per_node = 4;
  const FabricPlatform full(s);
  std::vector<double> plane_s;
  for (int p = 0; p < s.gpus_per_node; ++p) {
    const FabricPlatform plane(s, p);
    REQUIRE(plane.gpus() == s.nodes);
    core::TaskGraph g;
    std::vector<core::Flow> flows;
    for (int src = 0; src < s.nodes; ++src)
      for (int dst = 0; dst < s.nodes; ++dst)
        if (src != dst) flows.push_back({src, dst, 1e6});
    g.add_transfer("all", 0, "network", std::move(flows), {});
    plane_s.push_back(core::simulate(plane, g).makespan_s());
    // The same route as the whole fabric's between the plane's GPUs: same hop count, and the
    // spine chosen is the same one (spines are numbered alike in every plane).
    for (auto [a, b] : {std::pair{0, 47}, {5, 30}, {17, 2}}) {
      const auto alone = plane.route(a, b), whole = full.route(a * 4 + p, b * 4 + p);
      REQUIRE(alone.size() == 3);
      REQUIRE(whole.size() == 3);
      CHECK(spine_index(plane, alone[1]) == spine_index(full, whole[1]));
    }
  }
  CHECK(*std::max_element(plane_s.begin(), plane_s.end()) > *std::min_element(plane_s.begin(), plane_s.end()));
  core::TaskGraph g;
  std::vector<core::Flow> flows;
  for (int src = 0; src < s.nodes; ++src)
    for (int dst = 0; dst < s.nodes; ++dst)
      if (src != dst)
        for (int p = 0; p < s.gpus_per_node; ++p) flows.push_back({src * 4 + p, dst * 4 + p, 1e6});
  g.add_transfer("all", 0, "network", std::move(flows), {});
  CHECK(core::simulate(full, g).makespan_s() ==
        Approx(*std::max_element(plane_s.begin(), plane_s.end())).epsilon(1e-9));
  CHECK_THROWS_AS(FabricPlatform(s, 4), std::logic_error);
}

TEST_CASE("ring all-reduce takes 2 (N - 1) steps", "[fabric]") {
  const FabricPlatform p(spec(FabricKind::kMultiRail, 8));
  Ring r;
  for (int n = 0; n < 8; ++n) r.push_back(n * 4);
  CHECK(core::simulate(p, ring_graph({r}, 8e6, 2)).makespan_s() == Approx(14 * 1e6 / 50e9));
}

TEST_CASE("all-to-allv carries any byte matrix", "[fabric]") {
  const FabricPlatform p(spec(FabricKind::kMultiPlane, 2));  // 8 GPUs
  AllToAllSpec a{2, 4, 0, true, true, std::vector<std::vector<double>>(8, std::vector<double>(8, 0.0))};
  a.bytes[0][5] = 50e6;  // node 0 GPU 0 -> node 1 GPU 1: NVLink to GPU 1, then its NIC
  a.bytes[6][7] = 16e6;  // inside node 1
  const double t = core::simulate(p, alltoall_graph(a)).makespan_s();
  CHECK(t == Approx(50e6 / 50e9));  // the NIC stage is the longest
  a.aggregate = false;
  CHECK(core::simulate(p, alltoall_graph(a)).makespan_s() == Approx(t));
  a.bytes.pop_back();
  CHECK_THROWS_AS(alltoall_graph(a), std::invalid_argument);
}

TEST_CASE("aggregated all-to-allv carries each (from, to) the per-pair graph's bytes, summed in its order",
          "[fabric]") {
  // 3 nodes of 4 GPUs, uneven bytes (some zero) so that every sum's rounding shows.
  AllToAllSpec a{3, 4, 0, true, true, std::vector<std::vector<double>>(12, std::vector<double>(12, 0.0))};
  for (int s = 0; s < 12; ++s)
    for (int d = 0; d < 12; ++d) a.bytes[s][d] = (s * 7 + d * 13) % 5 == 0 ? 0.0 : 1e6 / (1 + s + 3 * d) + 0.1 * d;
  for (bool pxn : {true, false}) {
    a.pxn = pxn;
    // (stage, from, to) -> bytes, and the (stage, from) order of the transfers.
    auto flows_of = [](const core::TaskGraph& g) {
      std::map<std::tuple<std::string, int, int>, double> bytes;
      std::vector<std::pair<std::string, int>> order;
      for (const core::Task& t : g.tasks()) {
        if (t.kind != core::TaskKind::kTransfer) continue;
        const std::string stage = g.name(t).substr(0, g.name(t).find(' '));
        if (order.empty() || order.back() != std::make_pair(stage, t.rank)) order.emplace_back(stage, t.rank);
        for (const core::Flow& f : t.flows) bytes[{stage, f.src_rank, f.dst_rank}] += f.bytes;
      }
      return std::make_pair(bytes, order);
    };
    a.aggregate = true;
    const auto [aggregated, aggregated_order] = flows_of(alltoall_graph(a));
    a.aggregate = false;
    const auto [per_pair, per_pair_order] = flows_of(alltoall_graph(a));
    CHECK(aggregated == per_pair);  // exactly: the same additions in the same order
    CHECK(aggregated_order == per_pair_order);
  }
}

TEST_CASE("tree all-reduce pipelines chunks up and down the tree", "[fabric]") {
  const FabricPlatform p(spec(FabricKind::kMultiRail, 8));
  const double size = 8e6;
  const int chunks = 8;
  const double tau = size / chunks / 50e9;  // one chunk over one NIC
  // Root and two children: each chunk reaches the root over its shared incoming NIC link in 2 tau
  // and leaves over its shared outgoing one in 2 tau; the two directions overlap, so the whole
  // takes 2 tau per chunk plus the last chunk's way down.
  CHECK(core::simulate(p, tree_allreduce_graph({{0, 4, 8}}, size, chunks)).makespan_s() ==
        Approx(2 * tau * (chunks + 1)));
  // One chunk: no pipelining, reduce then broadcast.
  CHECK(core::simulate(p, tree_allreduce_graph({{0, 4, 8}}, size, 1)).makespan_s() == Approx(4 * size / 50e9));
  // Seven ranks: an inner rank's outgoing link carries each chunk up once and down twice, 3 tau
  // a chunk in steady state; filling and draining the two levels adds at most 2 x 2 x 2 tau. (This
  // imbalance is why NCCL runs two complementary trees.)
  const double seven = core::simulate(p, tree_allreduce_graph({{0, 4, 8, 12, 16, 20, 24}}, size, chunks)).makespan_s();
  CHECK(seven >= 3 * tau * chunks);
  CHECK(seven <= 3 * tau * chunks + 8 * tau + 1e-12);
}

TEST_CASE("static routes: a table entry for a destination, per leaf or for every leaf; others take d-mod-k",
          "[fabric]") {
  FabricSpec s = spec(FabricKind::kMultiRail, 8);  // radix 8: 4 nodes per leaf, 2 leaves per rail, 4 spines
  s.routing = Routing::kStatic;
  s.static_routes = {{16, -1, 3},  // GPU 16 (node 4): spine 3 from every leaf
                     {17, 0, 2},   // GPU 17: spine 2 from leaf 0 only
                     {17, -1, 1}};
  const FabricPlatform fabric(s);
  FabricSpec d = s;
  d.routing = Routing::kDModK;
  d.static_routes.clear();
  const FabricPlatform dmodk(d);
  const auto spine = [](const FabricPlatform& f, int src, int dst) { return f.route(src, dst).at(1); };
  const auto& g = fabric.graph();
  auto spine_index = [&](VertexId v) {  // spines are the first vertices added, in order
    int i = 0;
    for (auto [it, end] = boost::vertices(g); it != end && *it != v; ++it)
      if (g[*it].kind == VertexKind::kSwitch && g[*it].level == 1) ++i;
    return i;
  };
  CHECK(spine_index(spine(fabric, 0, 16)) == 3);
  CHECK(spine_index(spine(fabric, 4, 17)) == 2);                                 // GPU 4 = node 1, under leaf 0
  CHECK(spine_index(spine(fabric, 5, 21)) == spine_index(spine(dmodk, 5, 21)));  // not in the table
  FabricSpec mpft = spec(FabricKind::kMultiPlane, 8);
  mpft.routing = Routing::kStatic;
  mpft.static_routes = {{16, -1, 4}};
  CHECK_THROWS_WITH(check_fabric(mpft, "/fabric/"),
                    Catch::Contains("/fabric/static_routes/0/spine") && Catch::Contains("from 0 to 3"));
  mpft.static_routes = {{16, 2, 0}};
  CHECK_THROWS_WITH(check_fabric(mpft, "/fabric/"), Catch::Contains("/fabric/static_routes/0/from_leaf"));
}

TEST_CASE("PCIe between a GPU and its NIC bounds what leaves the node once it is slower than the NIC", "[fabric]") {
  FabricSpec s = spec(FabricKind::kMultiPlane, 2);
  s.nic_Bps = s.switch_link_Bps = 100e9;
  auto transfer_s = [](const FabricSpec& f) {
    core::TaskGraph g;
    g.add_transfer("t", 0, "comm", {{0, 4, 1e9}}, {});  // node 0 -> node 1, same plane
    return core::simulate(FabricPlatform(f), g).makespan_s();
  };
  CHECK(transfer_s(s) == Approx(1e9 / 100e9));  // no PCIe modelled
  s.pcie_Bps = 64e9;
  CHECK(transfer_s(s) == Approx(1e9 / 64e9));
  s.pcie_Bps = 128e9;
  CHECK(transfer_s(s) == Approx(1e9 / 100e9));
}
