#include <catch2/catch.hpp>

#include "core/engine.hpp"
#include "net/platform.hpp"
#include "workload/inference/decode_bound.hpp"
#include "workload/inference/decode_step.hpp"

using namespace workload;

namespace {

DecodeBoundInput paper_ib() {
  DecodeBoundInput in;
  in.tokens_per_device = 32;
  in.experts_per_token = 9;
  in.hidden = 7000;
  in.link_Bps = 50e9;
  in.layers = 61;
  return in;
}

net::Cluster flat(int nodes, int gpus_per_node, double scale_out_Bps, double latency_s) {
  net::Cluster c;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.gpu_flops_per_s = 1e15;
  c.scale_up_Bps = 160e9;
  c.scale_out_Bps = scale_out_Bps;
  c.scale_up_latency_s = latency_s;
  c.scale_out_latency_s = latency_s;
  return c;
}

}  // namespace

TEST_CASE("TPOT bound arithmetic (ISCA'25 2.3.2)", "[decode]") {
  const auto b = decode_bound(paper_ib());
  CHECK(b.bytes_per_ep_step == 3.0 * 32 * 9 * 7000);
  CHECK(b.comm_s_per_ep_step == Approx(120.96e-6));
  CHECK(b.layer_s == Approx(241.92e-6));
  CHECK(b.tpot_s == Approx(14.757e-3).epsilon(1e-4));
  auto nvl = paper_ib();
  nvl.link_Bps = 900e9;
  nvl.compute = DecodeCompute::kEqualToComm;
  const auto n = decode_bound(nvl);
  CHECK(n.comm_s_per_ep_step == Approx(6.72e-6));
  CHECK(n.tpot_s == Approx(0.81984e-3));
}

TEST_CASE("doubling the link bandwidth halves the communication", "[decode]") {
  auto in = paper_ib();
  const double base = decode_bound(in).comm_s_per_ep_step;
  in.link_Bps *= 2;
  CHECK(decode_bound(in).comm_s_per_ep_step == Approx(base / 2));
}

TEST_CASE("flow simulation with zero latency agrees with the bound", "[decode][engine]") {
  // Property over bandwidths, token counts and both compute models, on short models.
  for (double bw : {25e9, 50e9, 100e9})
    for (double tokens : {8.0, 32.0})
      for (auto compute : {DecodeCompute::kNone, DecodeCompute::kEqualToComm}) {
        auto in = paper_ib();
        in.link_Bps = bw;
        in.tokens_per_device = tokens;
        in.layers = 4;
        in.compute = compute;
        const auto graph = decode_step_graph(in, {80, 8});
        const auto timeline = core::simulate(net::StarPlatform(flat(10, 8, bw, 0)), graph);
        const double bound = decode_bound(in).tpot_s;
        // With compute, the first micro-batch's compute is not hidden: one extra step.
        const double fill = compute == DecodeCompute::kNone ? 0 : decode_bound(in).compute_s_per_micro_batch;
        CHECK(timeline.makespan_s() == Approx(bound + fill).epsilon(1e-6));
      }
}

TEST_CASE("flow latency adds once per sequential all-to-all", "[decode][engine]") {
  auto in = paper_ib();
  in.layers = 3;
  const double latency = 3.7e-6;
  const auto timeline = core::simulate(net::StarPlatform(flat(10, 8, 50e9, latency)), decode_step_graph(in, {80, 8}));
  const int all_to_alls = 2 * in.micro_batches * in.layers;
  CHECK(timeline.makespan_s() == Approx(decode_bound(in).tpot_s + all_to_alls * latency).epsilon(1e-6));
}
