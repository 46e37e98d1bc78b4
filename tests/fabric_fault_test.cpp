#include <catch2/catch.hpp>

#include "core/fluid_engine.hpp"
#include "core/simgrid_engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/fabric.hpp"

namespace {

// 16 nodes of 8 GPUs, 16-port switches: two leaves and eight spines per plane.
net::FabricSpec sixteen_nodes(net::FabricKind kind, net::Routing routing) {
  net::FabricSpec s;
  s.kind = kind;
  s.routing = routing;
  s.nodes = 16;
  s.radix = 16;
  s.nvlink_Bps = 160e9;
  s.nic_Bps = 50e9;
  s.switch_link_Bps = 50e9;
  return s;
}

double alltoall_s(const net::FabricSpec& spec, double bytes_per_pair = 1 << 20) {
  const net::AllToAllSpec a{spec.nodes, spec.gpus_per_node, bytes_per_pair, true, true, {}};
  return core::simulate_fluid(net::FabricPlatform(spec), net::alltoall_graph(a)).makespan_s();
}

net::Fault fault(net::FaultKind kind, const std::string& target, double at_s = 0, double fraction = 0) {
  net::Fault f;
  f.kind = kind;
  f.target = target;
  f.at_s = at_s;
  f.bandwidth_fraction = fraction;
  return f;
}

}  // namespace

TEST_CASE("fabric faults: components are named as the fabric lays them out", "[faults]") {
  auto spec = sixteen_nodes(net::FabricKind::kMultiPlane, net::Routing::kDModK);
  const auto c =
      net::find_fabric_component(spec, net::FaultKind::kLink, "plane 3 / leaf 1 / port 9", "/faults/0/target");
  CHECK(c.plane == 3);
  CHECK(c.leaf == 1);
  CHECK(c.spine == 1);  // ports past the 8 down to nodes go up to the spines
  CHECK(net::find_fabric_component(spec, net::FaultKind::kNic, "node 15 / nic 7", "").node == 15);
  CHECK_THROWS_WITH(
      net::find_fabric_component(spec, net::FaultKind::kSwitch, "plane 8 / leaf 0", "/faults/0/target"),
      Catch::Contains("/faults/0/target: 'plane 8 / leaf 0' is not allowed; there are 8 planes, 0 to 7") &&
          Catch::Contains("plane 0..7 / leaf 0..1"));
  CHECK_THROWS_AS(net::find_fabric_component(spec, net::FaultKind::kNic, "node 3 / nic 1 / port 1", ""),
                  core::InputError);
  spec.kind = net::FabricKind::kMultiRail;
  CHECK_THROWS_WITH(net::find_fabric_component(spec, net::FaultKind::kSwitch, "plane 1 / spine 0", ""),
                    Catch::Contains("'spine 0..7'"));
  CHECK(net::find_fabric_component(spec, net::FaultKind::kPlane, "rail 2", "").plane == 2);
  // Every name listed resolves.
  for (const auto* s : {&spec}) {
    const auto names = net::fabric_component_names(*s);
    CHECK(names.size() == 8 * 2 * (8 + 8) + 16 * 8 + 8 * 2 + 8 + 8 + 16 * 8 + 16);
    for (const auto& line : names) {
      const auto colon = line.find(": ");
      const auto& kinds = net::fault_kind_names();
      const auto k =
          static_cast<net::FaultKind>(std::find(kinds.begin(), kinds.end(), line.substr(0, colon)) - kinds.begin());
      CHECK_NOTHROW(net::find_fabric_component(*s, k, line.substr(colon + 2), ""));
    }
  }
}

TEST_CASE("fabric faults: bad faults are refused with the field named", "[faults]") {
  auto spec = sixteen_nodes(net::FabricKind::kMultiPlane, net::Routing::kDModK);
  spec.faults = {fault(net::FaultKind::kNic, "node 1 / nic 1", 0, 1.5)};
  CHECK_THROWS_WITH(net::check_fabric(spec, "/fabric/"), Catch::StartsWith("/fabric/faults/0/bandwidth_fraction: 1.5"));
  spec.faults = {fault(net::FaultKind::kNic, "node 1 / nic 1", -1)};
  CHECK_THROWS_WITH(net::check_fabric(spec, "/fabric/"), Catch::StartsWith("/fabric/faults/0/at_s"));
  spec.faults = {fault(net::FaultKind::kGpu, "node 1 / gpu 1", 0, 0.5)};
  CHECK_THROWS_WITH(net::check_fabric(spec, "/fabric/"), Catch::StartsWith("/fabric/faults/0/bandwidth_fraction"));
}

TEST_CASE("fabric faults: an all-to-all loses what the failed part carried, and no more", "[faults]") {
  for (auto routing : {net::Routing::kDModK, net::Routing::kAdaptive, net::Routing::kSpray, net::Routing::kEcmp}) {
    INFO("routing " << static_cast<int>(routing));
    auto spec = sixteen_nodes(net::FabricKind::kMultiPlane, routing);
    const double healthy = alltoall_s(spec);
    // A NIC down from the start: its GPU's traffic goes over NVLink to its node's other NICs.
    spec.faults = {fault(net::FaultKind::kNic, "node 0 / nic 0")};
    const double one_nic = alltoall_s(spec);
    CHECK(one_nic > healthy * 1.05);
    CHECK(one_nic < healthy * 8.0 / 7.0 * 1.25);
    // A plane down: each node has 7 NICs' bandwidth left for 8 NICs' traffic, spread over them
    // a node pair's flow at a time (15 per node here: not evenly over 7 planes).
    spec.faults = {fault(net::FaultKind::kPlane, "plane 5")};
    const double plane = alltoall_s(spec);
    CHECK(plane >= healthy * 8.0 / 7.0 * 0.999);
    CHECK(plane < healthy * 8.0 / 7.0 * 1.25);
    // A NIC at half its bandwidth.
    spec.faults = {fault(net::FaultKind::kNic, "node 0 / nic 0", 0, 0.5)};
    const double half_nic = alltoall_s(spec);
    CHECK(half_nic > healthy * 1.05);
  }
}

TEST_CASE("fabric faults: switch tables send into a dead spine until the sweep, adaptive routing avoids it at once",
          "[faults]") {
  auto spec = sixteen_nodes(net::FabricKind::kMultiPlane, net::Routing::kDModK);
  spec.table_update_s = 0.5;
  const double healthy = alltoall_s(spec, 16 << 20);
  REQUIRE(healthy < 0.5);
  spec.faults = {fault(net::FaultKind::kSwitch, "plane 0 / spine 3")};
  const double dmodk = alltoall_s(spec, 16 << 20);
  CHECK(dmodk > 0.5);  // flows through spine 3 stall until the tables change at 0.5 s
  CHECK(dmodk < 0.5 + healthy);
  spec.routing = net::Routing::kAdaptive;
  const double adaptive = alltoall_s(spec, 16 << 20);
  CHECK(adaptive < 0.5);
  CHECK(adaptive >= healthy * 0.999);
}

TEST_CASE("fabric faults: a flap costs its time, and a multi-port NIC loses only a port's share", "[faults]") {
  auto spec = sixteen_nodes(net::FabricKind::kMultiPlane, net::Routing::kAdaptive);
  const double healthy = alltoall_s(spec, 16 << 20);
  net::Fault flap = fault(net::FaultKind::kNic, "node 2 / nic 4", healthy / 4);
  flap.for_s = healthy / 4;
  spec.faults = {flap};
  spec.pxn_failover_s = 1;  // no failover within the flap: the NIC's flows wait it out
  const double flapped = alltoall_s(spec, 16 << 20);
  CHECK(flapped > healthy * 1.1);
  CHECK(flapped <= healthy * 1.25 + 1e-9);
  // Multi-port NICs, 4 ports each: a port down costs its NIC a quarter, in place, with no
  // failover; the all-to-all waits for that NIC (nothing moves its flows to NICs with room).
  spec.nic_ports = 4;
  spec.faults = {fault(net::FaultKind::kNic, "node 2 / nic 4 / port 1")};
  CHECK(alltoall_s(spec, 16 << 20) == Approx(healthy * 4.0 / 3.0).epsilon(0.02));
  // Plane 5 down costs every NIC of planes 4-7 a quarter, whatever the failover's delay.
  spec.pxn_failover_s = 1;
  spec.faults = {fault(net::FaultKind::kPlane, "plane 5")};
  CHECK(alltoall_s(spec, 16 << 20) == Approx(healthy * 4.0 / 3.0).epsilon(0.02));
  // Its switches down alone: the ports' flows move to the sibling planes at once.
  spec.faults = {fault(net::FaultKind::kSwitch, "plane 5 / leaf 0"),
                 fault(net::FaultKind::kSwitch, "plane 5 / leaf 1")};
  CHECK(alltoall_s(spec, 16 << 20) == Approx(healthy * 4.0 / 3.0).epsilon(0.02));
}

TEST_CASE("fabric faults: present from the start, they are a network SimGrid runs alike", "[faults]") {
  auto spec = sixteen_nodes(net::FabricKind::kMultiRail, net::Routing::kDModK);
  spec.nodes = 4;
  spec.faults = {fault(net::FaultKind::kPlane, "rail 2"), fault(net::FaultKind::kNic, "node 1 / nic 5", 0, 0.5)};
  const net::AllToAllSpec a{spec.nodes, spec.gpus_per_node, 1 << 20, true, true, {}};
  const net::FabricPlatform platform(spec);
  const auto graph = net::alltoall_graph(a);
  CHECK(core::simulate_fluid(platform, graph).makespan_s() ==
        Approx(core::simulate_simgrid(platform, graph).makespan_s()).epsilon(1e-3));
}
