#include <catch2/catch.hpp>

#include "core/engine.hpp"
#include "hw/gpu.hpp"
#include "net/fabric.hpp"
#include "workload/cluster_step.hpp"
#include "workload/data_parallel_sync.hpp"
#include "workload/pipeline_simulation.hpp"
#include "workload/stage_layout.hpp"

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
  return TrainingStep(v3(), h800_roofline(), par, batch, balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), ep, 132, 20);
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

TEST_CASE("a cluster's step in one run: each pipeline as it runs alone, each rank's synchronisation as its own run", "[training][cluster]") {
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
  const auto tasks = append_pipeline(alone, step.schedule(), [&](const Step& s) { return step.step_seconds(s); },
                                     step.pp_transfer_bytes(), g.pipelines[5]);
  const auto alone_timeline = core::simulate(platform, alone);
  for (std::size_t p = 0; p < g.pipelines.size(); ++p)
    for (std::size_t r = 0; r < tasks.size(); ++r)
      for (std::size_t i = 0; i < tasks[r].size(); ++i) {
        CHECK(timeline.span(g.step_tasks[p][r][i]).start_s == Approx(alone_timeline.span(tasks[r][i]).start_s).epsilon(1e-9));
        CHECK(timeline.span(g.step_tasks[p][r][i]).end_s == Approx(alone_timeline.span(tasks[r][i]).end_s).epsilon(1e-9));
      }
  CHECK(run.pipeline_s == Approx(alone_timeline.makespan_s()).epsilon(1e-9));

  // Each rank's synchronisation starts when its last chunk ends: under 1F1B the last rank's
  // first, while rank 0 still drains; its phases take what the same rings take in a run of
  // their own (the GPUs' NICs are free by then).
  const auto pm = pipeline_metrics(step.schedule(), pipeline_view(g, 0), timeline);
  const auto& last_rank = g.data_parallel.back();
  CHECK(timeline.span(last_rank.start).end_s < run.pipeline_s);
  CHECK(timeline.span(last_rank.start).end_s == Approx(timeline.span(g.step_tasks[0].back().back()).end_s));
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

TEST_CASE("a cluster's step: thinned spines slow what crosses them, pipelines or rings, by placement", "[training][cluster]") {
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
