#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/engine.hpp"
#include "net/platform.hpp"

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
  const auto tl = core::simulate(net::StarPlatform(two_nodes()), g);
  CHECK(tl.span(a).start_s == Approx(0).margin(1e-12));
  CHECK(tl.span(a).end_s == Approx(1e-3));
  CHECK(tl.span(t).start_s == Approx(1e-3));
  CHECK(tl.span(t).end_s == Approx(2e-3));
  CHECK(tl.span(b).end_s == Approx(4e-3));
  CHECK(tl.makespan_s() == Approx(4e-3));
}

TEST_CASE("flows sharing a NIC split its bandwidth (max-min)", "[engine]") {
  core::TaskGraph g;
  // Rank 0 sends 10 MB to each of ranks 2 and 3: its 10 GB/s NIC carries both, so 2 ms.
  const auto t = g.add_transfer("fan-out", 0, "comm", {{0, 2, 10e6}, {0, 3, 10e6}}, {});
  // Rank 1 sends to rank 0 over NVLink at the same time: unaffected, 1 MB at 100 GB/s.
  const auto u = g.add_transfer("nvlink", 1, "comm", {{1, 0, 1e6}}, {});
  const auto tl = core::simulate(net::StarPlatform(two_nodes()), g);
  CHECK(tl.span(t).end_s == Approx(2e-3));
  CHECK(tl.span(u).end_s == Approx(1e-5));
}

TEST_CASE("latency is end to end, split over the path's two links", "[engine]") {
  auto c = two_nodes();
  c.scale_out_latency_s = 4e-6;
  core::TaskGraph g;
  const auto t = g.add_transfer("ping", 0, "comm", {{0, 2, 0}}, {});
  CHECK(core::simulate(net::StarPlatform(c), g).span(t).end_s == Approx(4e-6));
}

TEST_CASE("streams overlap; a join waits for all its inputs", "[engine]") {
  core::TaskGraph g;
  const auto a = g.add_compute("a", 0, "compute", 3e-3, {});
  const auto b = g.add_transfer("b", 0, "comm", {{0, 1, 100e6}}, {});  // 1 ms over NVLink, beside a
  const auto j = g.add_join("both", {a, b});
  const auto c = g.add_compute("c", 1, "compute", 1e-3, {j});
  const auto d = g.add_compute("d", 0, "compute", 1e-3, {});  // same stream as a: runs after it
  const auto tl = core::simulate(net::StarPlatform(two_nodes()), g);
  CHECK(tl.span(b).end_s == Approx(1e-3));
  CHECK(tl.span(j).end_s == Approx(3e-3));
  CHECK(tl.span(c).start_s == Approx(3e-3));
  CHECK(tl.span(d).start_s == Approx(3e-3));
  CHECK(tl.busy_s(0, "compute") == Approx(4e-3));
}

TEST_CASE("the Chrome trace lists every task with its time in microseconds", "[engine]") {
  core::TaskGraph g;
  g.add_compute("work", 0, "compute", 2e-6, {});
  const auto tl = core::simulate(net::StarPlatform(two_nodes()), g);
  const auto trace = nlohmann::json::parse(tl.chrome_trace_json());
  bool found = false;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") {
      CHECK(e["name"] == "work");
      CHECK(e["dur"].get<double>() == Approx(2.0));
      found = true;
    }
  CHECK(found);
}

TEST_CASE("a graph holds each name and stream once, as a label its tasks share", "[engine]") {
  core::TaskGraph g;
  const auto a = g.add_compute("attn(F)", 0, "compute", 1e-3, {});
  const auto b = g.add_compute("attn(F)", 1, "compute", 1e-3, {});
  const auto c = g.add_transfer("dispatch(F)", 0, "communication", {{0, 1, 1e6}}, {a});
  const auto j = g.add_join("end", {b, c});
  const auto& t = g.tasks();
  CHECK(t[a].name == t[b].name);
  CHECK(t[a].stream == t[b].stream);
  CHECK(t[a].stream != t[c].stream);
  CHECK(g.name(t[a]) == "attn(F)");
  CHECK(g.name(t[c]) == "dispatch(F)");
  CHECK(g.stream(t[c]) == "communication");
  CHECK(g.name(t[j]) == "end");
  CHECK(g.stream(t[j]).empty());
  CHECK(g.label(t[b].stream) == "compute");
  // A copy keeps its own labels.
  const core::TaskGraph copy = g;
  CHECK(copy.name(copy.tasks()[c]) == "dispatch(F)");
}

TEST_CASE("a graph larger than the cluster is an error, not a crash", "[engine]") {
  core::TaskGraph g;
  g.add_transfer("far", 0, "comm", {{0, 9, 1}}, {});
  CHECK_THROWS_WITH(core::simulate(net::StarPlatform(two_nodes()), g),
                    Catch::Contains("uses rank 9 but the cluster has 4 GPUs"));
}
