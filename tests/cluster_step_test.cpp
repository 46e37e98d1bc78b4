#include <catch2/catch.hpp>

#include "core/engine.hpp"
#include "core/fluid_engine.hpp"
#include "hw/gpu.hpp"
#include "net/fabric.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/training/cluster_step.hpp"
#include "workload/training/data_parallel_sync.hpp"
#include "workload/training/stage_layout.hpp"

using namespace workload;

namespace {

const Model& v3() { return model_by_name("deepseek-v3"); }

Roofline h800_roofline() { return Roofline(hw::gpu_by_name("H800"), KernelEfficiency{}, true); }

// 64 GPUs on 8 nodes: 4 pipeline ranks of 2 nodes each, 16 pipelines, EP 8; 1F1B.
TrainingParallelism small_cluster() {
  TrainingParallelism par;
  par.gpus = 64;
  par.pp = 4;
  par.dp = 16;
  par.ep = 8;
  par.schedule = "1f1b";
  par.order = {"tp", "cp", "ep", "dp", "pp"};
  return par;
}

TrainingStep small_step(const TrainingParallelism& par) {
  EpCommTimes ep;
  ep.dispatch_forward_s = 2e-3;
  ep.combine_forward_s = ep.combine_backward_s = ep.dispatch_backward_s = 4e-3;
  TrainingBatch batch;
  batch.global_sequences = 128;  // 8 micro-batches per pipeline
  return TrainingStep(v3(), h800_roofline(), par, batch, balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), ep,
                      132, 20);
}

net::FabricSpec cluster_fabric(const TrainingParallelism& par) {
  net::FabricSpec f;
  f.nodes = par.gpus / par.gpus_per_node;
  f.radix = 8;  // 4 nodes a leaf: pipeline ranks 0-1 under one leaf, 2-3 under the other
  f.nic_latency_s = 1e-6;
  f.switch_link_latency_s = 0.5e-6;
  return f;
}

}  // namespace

TEST_CASE("a cluster's step in one run: each pipeline as it runs alone, each rank's synchronisation as its own run",
          "[training][cluster]") {
  const auto par = small_cluster();
  const auto step = small_step(par);
  const auto g = cluster_step_graph(step, OptimizerSetup{}, h800_roofline());
  REQUIRE(g.pipelines.size() == 16);
  for (const auto& gpus : g.pipelines) REQUIRE(gpus.size() == 4);
  CHECK(g.pipelines[3] == std::vector<int>{3, 19, 35, 51});  // PP outermost: a rank every 2 nodes

  const net::FabricPlatform platform(cluster_fabric(par));
  const auto timeline = core::simulate(platform, g.graph);
  const auto run = cluster_step_result(g, step, timeline);

  // One pipeline alone on the fabric, its ranks on the same GPUs: d-mod-k gives the pipelines'
  // sends links of their own, so each runs as it does alone.
  core::TaskGraph alone;
  const auto tasks =
      append_pipeline(alone, step.schedule(), compute_steps([&](const Step& s) { return step.step_seconds(s); }),
                      step.pp_transfer_bytes(), g.pipelines[5])
          .step_tasks;
  const auto alone_timeline = core::simulate(platform, alone);
  for (std::size_t p = 0; p < g.pipelines.size(); ++p)
    for (std::size_t r = 0; r < tasks.size(); ++r)
      for (std::size_t i = 0; i < tasks[r].size(); ++i) {
        CHECK(timeline.span(g.steps[p].step_tasks[r][i]).start_s ==
              Approx(alone_timeline.span(tasks[r][i]).start_s).epsilon(1e-9));
        CHECK(timeline.span(g.steps[p].step_tasks[r][i]).end_s ==
              Approx(alone_timeline.span(tasks[r][i]).end_s).epsilon(1e-9));
      }
  CHECK(run.pipeline_s == Approx(alone_timeline.makespan_s()).epsilon(1e-9));

  // Each rank's synchronisation starts when its last chunk ends: under 1F1B the last rank's
  // first, while rank 0 still drains; its phases take what the same rings take in a run of
  // their own (the GPUs' NICs are free by then).
  const auto pm = pipeline_metrics(step.schedule(), pipeline_view(g, 0), timeline);
  const auto& last_rank = g.data_parallel.back();
  CHECK(timeline.span(last_rank.start).end_s < run.pipeline_s);
  CHECK(timeline.span(last_rank.start).end_s == Approx(timeline.span(g.steps[0].step_ends.back().back()).end_s));
  for (int rank = 0; rank < par.pp; ++rank) {
    INFO("pipeline rank " << rank);
    DataParallelSetup setup{step.rank_parameters(rank), par, OptimizerSetup{}, cluster_fabric(par), true};
    const auto separate = data_parallel_times(setup, h800_roofline());
    const auto together = g.data_parallel[static_cast<std::size_t>(rank)].times(timeline);
    CHECK(together.reduce_scatter_s == Approx(separate.reduce_scatter_s).epsilon(1e-6));
    CHECK(together.all_gather_s == Approx(separate.all_gather_s).epsilon(1e-6));
    CHECK(together.optimizer_s == Approx(separate.optimizer_s));
  }
  // The step waits for the rank whose synchronisation ends last, each having started at its own
  // rank's end: never more than the longest synchronisation after the last chunk.
  double latest_s = 0, longest_s = 0;
  for (const auto& dp : g.data_parallel) {
    latest_s = std::max(latest_s, timeline.span(dp.end()).end_s);
    longest_s = std::max(longest_s, dp.times(timeline).total());
  }
  CHECK(run.step_s == Approx(latest_s));
  CHECK(timeline.span(g.data_parallel[static_cast<std::size_t>(run.dp_rank)].end()).end_s == Approx(run.step_s));
  CHECK(run.step_s <= run.pipeline_s + longest_s * (1 + 1e-9));
  CHECK(pm.step_s == Approx(run.pipeline_s));
}

TEST_CASE("a cluster's step: thinned spines slow what crosses them, pipelines or rings, by placement",
          "[training][cluster]") {
  auto run = [](const std::vector<std::string>& order, double spine_share) {
    auto par = small_cluster();
    par.order = order;
    const auto step = small_step(par);
    const auto g = cluster_step_graph(step, OptimizerSetup{}, h800_roofline());
    auto f = cluster_fabric(par);
    f.switch_link_Bps *= spine_share;
    return cluster_step_result(g, step, core::simulate(net::FabricPlatform(f), g.graph));
  };
  // PP outermost: a pipeline's ranks 1 and 2 sit under different leaves, so its sends cross the
  // spines; a rank's rings stay under its leaf (its 16 GPUs are 2 nodes).
  const std::vector<std::string> pp_outer = {"tp", "cp", "ep", "dp", "pp"};
  const auto full = run(pp_outer, 1), thin = run(pp_outer, 0.25);
  CHECK(thin.pipeline_s > full.pipeline_s);
  CHECK(thin.step_s - thin.pipeline_s == Approx(full.step_s - full.pipeline_s));
  // DP outermost: a pipeline is 4 nodes under one leaf, a rank's rings join nodes r and r + 4
  // across the leaves.
  const std::vector<std::string> dp_outer = {"tp", "cp", "ep", "pp", "dp"};
  const auto full_dp = run(dp_outer, 1), thin_dp = run(dp_outer, 0.25);
  CHECK(thin_dp.pipeline_s == Approx(full_dp.pipeline_s));
  CHECK(thin_dp.step_s - thin_dp.pipeline_s > 1.5 * (full_dp.step_s - full_dp.pipeline_s));
}

TEST_CASE("a cluster's step overlapping its synchronisation waits less for it", "[training][cluster]") {
  auto par = small_cluster();
  const auto plain_step = small_step(par);
  par.dp_comm_overlap = true;
  const auto overlapped_step = small_step(par);
  const net::FabricPlatform platform(cluster_fabric(par));
  auto run = [&](const TrainingStep& step) {
    const auto g = cluster_step_graph(step, OptimizerSetup{}, h800_roofline());
    return cluster_step_result(g, step, core::simulate(platform, g.graph));
  };
  const auto plain = run(plain_step), overlapped = run(overlapped_step);
  CHECK(overlapped.pipeline_s == Approx(plain.pipeline_s).epsilon(1e-3));
  CHECK(overlapped.step_s < plain.step_s);
  CHECK(overlapped.step_s >= overlapped.pipeline_s);
}

namespace {

// 64 GPUs on 8 nodes, EP 16 (two nodes a group, four groups), the model's real all-to-alls.
struct EpCluster {
  TrainingParallelism par;
  EpCommSetup setup;
  EpTraffic traffic;
  EpCommTimes times;
};

EpCluster ep_cluster(int pp, bool one_routing) {
  EpCluster c;
  c.par = small_cluster();
  c.par.pp = pp;
  c.par.dp = 64 / pp;
  c.par.ep = 16;
  c.setup.model = &v3();
  c.setup.ep = 16;
  c.setup.tokens_per_gpu = 4096;
  c.setup.simulated_tokens_per_gpu = 64;
  c.setup.fabric = cluster_fabric(c.par);
  c.setup.groups = c.par.expert_grid().groups({"ep"});
  c.traffic = expert_parallel_traffic(c.setup);
  if (one_routing) {  // every group routes alike: each op takes every group the same time
    c.traffic.forward.resize(1);
    c.traffic.gradients.resize(1);
  }
  c.times = expert_parallel_comm(c.setup, c.traffic);
  return c;
}

TrainingStep ep_step(const EpCluster& c) {
  TrainingBatch batch;
  batch.global_sequences = 8 * c.par.dp;  // 8 micro-batches per pipeline
  return TrainingStep(v3(), h800_roofline(), c.par, batch, balanced_stage_layout(v3(), c.par.pp, false, 4096, "/pp"),
                      c.times, 132, 20);
}

}  // namespace

TEST_CASE(
    "a cluster's step with its all-to-alls in the run: alone on the fabric, each op as the per-micro-batch run times it",
    "[training][cluster][ep]") {
  // One stage: no PP sends, every group at the same op at once, as the per-micro-batch run has them.
  const auto c = ep_cluster(1, true);
  const auto step = ep_step(c);
  const net::FabricPlatform platform(cluster_fabric(c.par));
  const auto timed = cluster_step_graph(step, OptimizerSetup{}, h800_roofline());
  const auto a = cluster_step_result(timed, step, core::simulate(platform, timed.graph));
  CHECK(c.times.dispatch_forward_s > 0);
  CHECK(step.stages()[0].layers.back().backward.combine_cast_s >
        0);  // combine(B) casts before it sends, in the run too
  for (bool per_flow : {true, false}) {
    INFO((per_flow ? "every flow as routed" : "flows evened per group and op"));
    const EpInStep ep{c.traffic, c.times, per_flow};
    const auto in_run = cluster_step_graph(step, OptimizerSetup{}, h800_roofline(), &ep);
    CHECK(in_run.graph.flow_count() > 100 * timed.graph.flow_count());
    const auto tl = core::simulate(platform, in_run.graph);
    const auto b = cluster_step_result(in_run, step, tl);
    CHECK(b.pipeline_s == Approx(a.pipeline_s).epsilon(1e-3));
    CHECK(b.step_s == Approx(a.step_s).epsilon(1e-3));
    // A step lasts in the run what its ops add up to as the step is timed (the first pipeline's GPU).
    const auto ops = step.step_ops(step.schedule().steps[0][0]);
    const auto span = in_run.steps[0].span(tl, 0, 0);
    CHECK(span.end_s - span.start_s == Approx(ops.back().end_s).epsilon(1e-3));
  }
}

TEST_CASE(
    "a cluster's step with its all-to-alls in the run: the run sets how long they take; evened flows hold to routed ones",
    "[training][cluster][ep]") {
  // Groups route differently (four routings) and the PP sends share the NICs with the
  // all-to-alls: each group takes its own time in the run, slowed by what crosses its links.
  const auto c = ep_cluster(4, false);
  const auto step = ep_step(c);
  const auto timed = cluster_step_graph(step, OptimizerSetup{}, h800_roofline());
  const EpInStep per_flow{c.traffic, c.times, true}, even{c.traffic, c.times, false};
  const auto routed = cluster_step_graph(step, OptimizerSetup{}, h800_roofline(), &per_flow);
  const auto evened = cluster_step_graph(step, OptimizerSetup{}, h800_roofline(), &even);
  const net::FabricPlatform platform(cluster_fabric(c.par));
  core::SimulationStats routed_stats, evened_stats;
  const auto a = cluster_step_result(timed, step, core::simulate(platform, timed.graph));
  const auto b = cluster_step_result(routed, step, core::simulate_fluid(platform, routed.graph, &routed_stats));
  const auto e = cluster_step_result(evened, step, core::simulate_fluid(platform, evened.graph, &evened_stats));
  CHECK(b.pipeline_s == Approx(a.pipeline_s).epsilon(0.05));
  CHECK(e.pipeline_s == Approx(b.pipeline_s).epsilon(0.01));
  CHECK(e.step_s == Approx(b.step_s).epsilon(0.01));
  CHECK(evened_stats.solves * 2 < routed_stats.solves);

  // NICs at a quarter of the rate the all-to-alls were timed at: the run's all-to-alls take
  // longer, and the step with them; the per-micro-batch times do not see it.
  auto slow = cluster_fabric(c.par);
  slow.nic_Bps /= 4;
  const net::FabricPlatform slow_platform(slow);
  const auto a_slow = cluster_step_result(timed, step, core::simulate(slow_platform, timed.graph));
  const auto b_slow = cluster_step_result(routed, step, core::simulate(slow_platform, routed.graph));
  const auto e_slow = cluster_step_result(evened, step, core::simulate(slow_platform, evened.graph));
  CHECK(b_slow.pipeline_s > 1.2 * a_slow.pipeline_s);
  CHECK(e_slow.pipeline_s == Approx(b_slow.pipeline_s).epsilon(0.01));
}
