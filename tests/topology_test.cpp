#include <catch2/catch.hpp>
#include <boost/graph/connected_components.hpp>

#include "core/input_error.hpp"
#include "net/topology.hpp"

using namespace net;

namespace {

bool same(const TopologyCounts& a, const TopologyCounts& b) {
  return a.endpoints == b.endpoints && a.switches == b.switches && a.inter_switch_links == b.inter_switch_links &&
         a.endpoint_links == b.endpoint_links;
}

int components(const Graph& g) {
  std::vector<int> component(boost::num_vertices(g));
  return boost::connected_components(g, component.data());
}

int max_degree(const Graph& g) {
  int d = 0;
  for (auto [v, end] = boost::vertices(g); v != end; ++v) d = std::max<int>(d, static_cast<int>(boost::degree(*v, g)));
  return d;
}

}  // namespace

TEST_CASE("built graphs count what the closed forms say", "[topology]") {
  for (int k : {4, 8, 16, 64}) {
    CHECK(same(count(fat_tree_2(k, 1)), fat_tree_2_counts(k, 1)));
    CHECK(same(count(fat_tree_2(k, 8)), fat_tree_2_counts(k, 8)));
    CHECK(max_degree(fat_tree_2(k, 1)) == k);
  }
  for (int k : {4, 8, 16}) {
    const auto g = fat_tree_3(k);
    CHECK(same(count(g), fat_tree_3_counts(k)));
    CHECK(components(g) == 1);
    CHECK(max_degree(g) == k);
  }
  // Fewer pods than the radix allows, and three-level planes (an MPFT past two levels).
  for (auto [k, pods, planes] :
       {std::array{8, 3, 1}, std::array{8, 8, 1}, std::array{16, 4, 2}, std::array{64, 16, 1}}) {
    const auto g = fat_tree_3(k, "", pods, planes);
    CHECK(same(count(g), fat_tree_3_counts(k, pods, planes)));
    CHECK(components(g) == planes);
    CHECK(max_degree(g) == k);
  }
  CHECK(fat_tree_3_counts(64, 16, 8).endpoints == 131072);
  CHECK_THROWS_AS(fat_tree_3(8, "/t/", 9), core::InputError);
  for (auto [p, a, h, groups] : {std::array{2, 4, 2, 9}, std::array{4, 8, 4, 33}, std::array{4, 8, 4, 31}}) {
    const auto g = dragonfly(p, a, h, groups);
    CHECK(same(count(g), dragonfly_counts(p, a, h, groups)));
    CHECK(components(g) == 1);
    CHECK(max_degree(g) == p + (a - 1) + h);
  }
  for (int q : {5, 7, 11, 13}) {
    const auto g = slim_fly(q);
    CHECK(same(count(g), slim_fly_counts(q)));
    CHECK(components(g) == 1);
  }
}

TEST_CASE("Slim Fly routers have the MMS degree, and the graph has diameter 2", "[topology]") {
  const int q = 7;  // delta = -1: network radix (21 + 1) / 2 = 11, 6 endpoints each
  const auto g = slim_fly(q);
  const int routers = 2 * q * q;
  for (int r = 0; r < routers; ++r) CHECK(boost::degree(static_cast<VertexId>(r), g) == 11 + 6);
  // Any two routers share a neighbour or a link.
  std::vector<std::vector<bool>> adjacent(routers, std::vector<bool>(routers, false));
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const auto s = boost::source(*e, g), t = boost::target(*e, g);
    if (static_cast<int>(s) < routers && static_cast<int>(t) < routers) adjacent[s][t] = adjacent[t][s] = true;
  }
  int far = 0;
  for (int a = 0; a < routers; ++a)
    for (int b = a + 1; b < routers; ++b) {
      bool near = adjacent[a][b];
      for (int c = 0; c < routers && !near; ++c) near = adjacent[a][c] && adjacent[c][b];
      far += !near;
    }
  CHECK(far == 0);
}

TEST_CASE("ISCA'25 Table 3 counts with 64-port switches", "[topology]") {
  CHECK(same(count(fat_tree_2(64, 1)), {2048, 96, 2048, 2048}));
  CHECK(same(count(fat_tree_2(64, 8)), {16384, 768, 16384, 16384}));
  CHECK(same(count(fat_tree_3(64)), {65536, 5120, 131072, 65536}));
  CHECK(same(slim_fly_counts(28), {32928, 1568, 32928, 32928}));
  CHECK(same(count(dragonfly(16, 32, 16, 511)), {261632, 16352, 384272, 261632}));
}

TEST_CASE("topologies that cannot exist are refused with the rule", "[topology]") {
  CHECK_THROWS_WITH(fat_tree_2(63, 1, "/network/"),
                    Catch::StartsWith("/network/radix: 63 is not allowed; a fat tree needs an even switch radix"));
  CHECK_THROWS_WITH(fat_tree_2(64, 0, "/network/"), Catch::StartsWith("/network/planes: 0 is not allowed"));
  CHECK_THROWS_WITH(dragonfly(16, 32, 16, 600, "/network/"),
                    Catch::StartsWith("/network/groups: 600 is not allowed; from 2 to a x h + 1 = 513"));
  CHECK_THROWS_WITH(slim_fly(28, "/network/"), Catch::StartsWith("/network/q: 28 is not allowed"));
}
