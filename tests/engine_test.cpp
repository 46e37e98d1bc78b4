#include <catch2/catch.hpp>

#include "core/engine.hpp"

namespace {

net::Cluster two_nodes() {
  net::Cluster c;
  c.nodes = 2;
  c.gpus_per_node = 2;
  c.gpu_flops_per_s = 1e15;
  c.scale_up_Bps = 100e9;
  c.scale_up_latency_s = 0;
  c.scale_out_Bps = 10e9;
  c.scale_out_latency_s = 0;
  return c;
}

}  // namespace

TEST_CASE("engine runs compute and transfers in dependency order", "[engine]") {
  core::TaskGraph g;
  const auto a = g.add_compute("a", 0, "compute", 1e-3, {});
  const auto t = g.add_transfer("t", 0, "comm", {{0, 2, 10e6}}, {a});  // 10 MB over 10 GB/s: 1 ms
  const auto b = g.add_compute("b", 2, "compute", 2e-3, {t});
  const auto tl = core::simulate(two_nodes(), g);
  CHECK(tl.span(a).start_s == Approx(0).margin(1e-12));
  CHECK(tl.span(a).end_s == Approx(1e-3));
  CHECK(tl.span(t).start_s == Approx(1e-3));
  CHECK(tl.span(t).end_s == Approx(2e-3));
  CHECK(tl.span(b).end_s == Approx(4e-3));
  CHECK(tl.makespan_s() == Approx(4e-3));
}
