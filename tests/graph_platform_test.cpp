#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "core/engine.hpp"
#include "net/alltoall.hpp"
#include "net/graph_platform.hpp"

using namespace net;

TEST_CASE("minimal routes on any topology graph", "[graph-platform]") {
  const GraphPlatform ft3(fat_tree_3(4), {}, Routing::kDModK);  // 16 endpoints, 2 per edge switch
  CHECK(ft3.route(0, 1).size() == 3);                           // endpoint, edge, endpoint
  CHECK(ft3.route(0, 2).size() == 5);                           // up to aggregation and down, same pod
  CHECK(ft3.route(0, 15).size() == 7);                          // through a core
  const GraphPlatform sf(slim_fly(5), {}, Routing::kEcmp);
  for (int dst = 1; dst < sf.gpus(); dst += 7) CHECK(sf.route(0, dst).size() <= 5);  // router diameter 2
  const GraphPlatform df(dragonfly(2, 4, 2, 9), {}, Routing::kAdaptive);
  for (int dst = 1; dst < df.gpus(); dst += 5) CHECK(df.route(0, dst).size() <= 6);  // local, global, local
}

TEST_CASE("an all-to-all runs on Slim Fly and Dragonfly graphs", "[graph-platform]") {
  for (auto* name : {"slim-fly", "dragonfly"}) {
    INFO(name);
    const Graph graph = std::string(name) == "slim-fly" ? slim_fly(5) : dragonfly(2, 4, 2, 9);
    const AllToAllSpec a{static_cast<int>(GraphPlatform(graph, {}, Routing::kDModK).gpus()), 1, 1e6, false, true, {}};
    // Every endpoint sends (GPUs - 1) MB through its 50 GB/s link: no faster than that.
    const double nic_bound = (a.nodes - 1) * 1e6 / 50e9;
    CHECK(core::simulate(GraphPlatform(graph, {}, Routing::kAdaptive), alltoall_graph(a)).makespan_s() >=
          nic_bound * (1 - 1e-9));
    // With d-mod-k the routes are fixed: the all-to-all ends when its busiest directed link,
    // counted here from the routes, has carried its bytes at 50 GB/s (max-min sharing keeps
    // that link full; on these graphs it carries more than a NIC).
    const GraphPlatform fixed(graph, {}, Routing::kDModK);
    std::map<std::pair<VertexId, VertexId>, double> bytes;
    for (int src = 0; src < fixed.gpus(); ++src)
      for (int dst = 0; dst < fixed.gpus(); ++dst) {
        if (src == dst) continue;
        const auto hops = fixed.route(src, dst);
        for (std::size_t h = 0; h + 1 < hops.size(); ++h) bytes[{hops[h], hops[h + 1]}] += 1e6;
      }
    double busiest = 0;
    for (const auto& [link, b] : bytes) busiest = std::max(busiest, b);
    const double t = core::simulate(fixed, alltoall_graph(a)).makespan_s();
    CHECK(busiest / 50e9 > nic_bound);
    CHECK(t == Approx(busiest / 50e9));
  }
}

TEST_CASE("on a full-bisection fat tree adaptive routing reaches NIC speed, hashing does not", "[graph-platform]") {
  const AllToAllSpec a{16, 1, 1e6, false, true, {}};
  auto time = [&](Routing r) {
    return core::simulate(GraphPlatform(fat_tree_3(4), {}, r), alltoall_graph(a)).makespan_s();
  };
  const double nic_bound = 15 * 1e6 / 50e9;  // each endpoint sends 15 MB through its link
  CHECK(time(Routing::kAdaptive) == Approx(nic_bound));
  CHECK(time(Routing::kEcmp) > 1.2 * nic_bound);
  CHECK(time(Routing::kDModK) > 1.2 * nic_bound);
}
