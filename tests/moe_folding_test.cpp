// MoE parallel folding: the experts' grid (etp, ep, expert DP) over the GPUs of attention's
// (tp, cp, dp), both with one set of pipeline groups, placed by one order.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "hw/gpu.hpp"
#include "workload/parallel/rank_grid.hpp"
#include "workload/parallel/training_parallelism.hpp"
#include "workload/training/stage_layout.hpp"
#include "workload/training/training_step.hpp"

using namespace workload;

namespace {

TrainingParallelism layout(int tp, int cp, int pp, int dp, int ep, int etp, std::vector<std::string> order) {
  TrainingParallelism par;
  par.tp = tp;
  par.cp = cp;
  par.pp = pp;
  par.dp = dp;
  par.ep = ep;
  par.etp = etp;
  par.gpus = tp * cp * pp * dp;
  par.schedule = "1f1b";
  par.order = std::move(order);
  return par;
}

const std::vector<std::string> kPpLast = {"tp", "cp", "ep", "dp", "pp"};

std::vector<int> range(int from, int to) {
  std::vector<int> out;
  for (int r = from; r < to; ++r) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("a dimension in two slots: its groups vary both", "[layout][folding]") {
  const RankGrid grid({{"tp", 2}, {"dp", 2}, {"pp", 2}, {"dp", 3}});
  CHECK(grid.ranks() == 24);
  CHECK(grid.size("dp") == 6);
  CHECK(grid.stride("dp") == 2);
  CHECK(grid.group_of(0, {"dp"}) == std::vector<int>{0, 2, 8, 10, 16, 18});
  CHECK(grid.groups({"dp"}).size() == 4);
  for (const auto& group : grid.groups({"dp"}))
    for (int r : group) CHECK(grid.group_of(r, {"dp"}) == group);
}

TEST_CASE("EP carved from DP places its groups as before folding", "[layout][folding]") {
  // Table 4: EP 64 of 128 DP replicas, PP 16 outermost.
  const auto par = layout(1, 1, 16, 128, 64, 1, kPpLast);
  CHECK(par.expert_grid().group_of(0, {"ep"}) == range(0, 64));
  CHECK(par.expert_grid().group_of(0, {"dp"}) == std::vector<int>{0, 64});
  CHECK(par.attention_grid().group_of(0, {"pp"}) == par.expert_grid().group_of(0, {"pp"}));
  CHECK(par.attention_grid().stride("pp") == 128);
  // PP between EP and the rest of DP: the EP group inside a stage, the dense DP around it.
  const auto inner = layout(1, 1, 4, 16, 8, 1, {"tp", "cp", "ep", "pp", "dp"});
  CHECK(inner.pipeline_stride() == 8);
  CHECK(inner.expert_grid().group_of(0, {"ep"}) == range(0, 8));
  auto dense = range(0, 8);
  for (int r = 32; r < 40; ++r) dense.push_back(r);
  CHECK(inner.attention_grid().group_of(0, inner.dense_dp_dims()) == dense);
  CHECK(inner.expert_grid().group_of(0, {"dp"}) == std::vector<int>{0, 32});
}

TEST_CASE("a folded EP group spans TP and DP ranks: Mixtral's EP 8 on 4 DP replicas of TP 2", "[layout][folding]") {
  const auto par = layout(2, 1, 8, 4, 8, 1, kPpLast);  // refused before folding: EP 8 does not divide DP 4
  CHECK(par.expert_dp() == 1);
  CHECK(par.expert_grid().group_of(0, {"ep"}) == range(0, 8));  // one node: the all-to-all on NVLink
  CHECK(par.expert_members_per_node("ep") == 8);
  CHECK(par.attention_grid().group_of(0, {"tp"}) == std::vector<int>{0, 1});
  CHECK(par.attention_grid().group_of(0, {"dp"}) == std::vector<int>{0, 2, 4, 6});
  CHECK(par.expert_grid().group_of(0, {"dp"}) == std::vector<int>{0});
  // Experts cut as attention is: EP over the TP groups.
  const auto cut = layout(2, 1, 8, 4, 4, 2, kPpLast);
  CHECK(cut.expert_grid().group_of(0, {"ep"}) == std::vector<int>{0, 2, 4, 6});
  CHECK(cut.expert_grid().group_of(0, {"tp"}) == std::vector<int>{0, 1});
}

TEST_CASE("folded grids: every order and layout agrees on pipelines and covers each stage's GPUs",
          "[layout][folding]") {
  const std::vector<std::string> rest = {"cp", "dp", "ep", "pp"};
  std::vector<std::string> perm = rest;
  std::sort(perm.begin(), perm.end());
  int checked = 0;
  do {
    std::vector<std::string> order = {"tp"};
    order.insert(order.end(), perm.begin(), perm.end());
    for (int tp : {1, 2, 4})
      for (int cp : {1, 2})
        for (int dp : {1, 2, 4, 8})
          for (int pp : {1, 2, 4})
            for (int etp : {1, tp})
              for (int ep = 1; ep * etp <= tp * cp * dp; ep *= 2) {
                const auto par = layout(tp, cp, pp, dp, ep, etp, order);
                if ((tp * cp * dp) % (ep * etp) != 0) continue;
                INFO("order " << order[1] << order[2] << order[3] << order[4] << " tp " << tp << " cp " << cp << " dp "
                              << dp << " pp " << pp << " ep " << ep << " etp " << etp);
                REQUIRE(par.experts_fit_pipeline_stride());  // sizes that are powers of two always fit
                const RankGrid a = par.attention_grid(), e = par.expert_grid();
                REQUIRE(a.ranks() == par.gpus);
                REQUIRE(e.ranks() == par.gpus);
                const auto pipelines = a.groups({"pp"});
                REQUIRE(pipelines == e.groups({"pp"}));
                std::vector<int> stage_of(static_cast<std::size_t>(par.gpus));
                for (const auto& p : pipelines)
                  for (std::size_t s = 0; s < p.size(); ++s)
                    stage_of[static_cast<std::size_t>(p[s])] = static_cast<int>(s);
                const auto eps = e.groups({"ep"});
                CHECK(eps.size() == static_cast<std::size_t>(par.gpus / ep));
                for (const auto& g : eps) {
                  CHECK(g.size() == static_cast<std::size_t>(ep));
                  // An all-to-all between GPUs of one pipeline stage.
                  CHECK(std::all_of(g.begin(), g.end(), [&](int r) {
                    return stage_of[static_cast<std::size_t>(r)] == stage_of[static_cast<std::size_t>(g[0])];
                  }));
                }
                for (const auto& g : e.groups({"dp"})) CHECK(g.size() == static_cast<std::size_t>(par.expert_dp()));
                for (const auto& g : a.groups(par.dense_dp_dims()))
                  CHECK(g.size() == static_cast<std::size_t>(par.dense_dp()));
                // A shard of each expert on every GPU of a stage: etp x ep x expert DP of them.
                for (const auto& g : e.groups({"tp", "ep", "dp"}))
                  CHECK(g.size() == static_cast<std::size_t>(tp * cp * dp));
                ++checked;
              }
  } while (std::next_permutation(perm.begin(), perm.end()));
  CHECK(checked > 1000);
}

TEST_CASE("an order that puts PP inside an expert dimension it does not divide is refused", "[layout][folding]") {
  // TP 4, EP 6 whole experts: PP after the "ep" slot sits at TP's stride, 4, which does not divide 6.
  const auto par = layout(4, 1, 2, 6, 6, 1, {"tp", "cp", "ep", "pp", "dp"});
  CHECK(par.pipeline_stride() == 4);
  CHECK_FALSE(par.experts_fit_pipeline_stride());
  CHECK(layout(4, 1, 2, 6, 6, 1, kPpLast).experts_fit_pipeline_stride());
}

TEST_CASE("experts cut over their own TP group gather and scatter over it", "[layout][folding]") {
  const Model& mixtral = model_by_name("mixtral-8x7b");
  const Roofline roofline(hw::gpu_by_name("A100"), KernelEfficiency{}, false);
  auto mlp_forward_s = [&](int etp, double etp_Bps) {
    const auto par = layout(4, 1, 4, 2, 8 / etp, etp, kPpLast);
    const TrainingBatch batch{par.dp * 4, 4096, 1};
    const TrainingStep step(mixtral, roofline, par, batch,
                            balanced_stage_layout(mixtral, par.stages(), false, 4096, "/pp"), {}, 108, 0, std::nullopt,
                            GroupLinks{1e30, 1e30, etp_Bps});
    return step.stages()[1].layers[1].forward.mlp_s;
  };
  // ETP 2 under TP 4: the ETP group's two sequence shards (of 4096 / 4 tokens) gathered before the
  // experts and scattered after, half of them crossing the link.
  const double link_Bps = 50e9;
  const double expected_s = 2 * 0.5 * 2.0 * mixtral.hidden * 4096 * 2 / 4 / link_Bps;
  CHECK(mlp_forward_s(2, link_Bps) - mlp_forward_s(2, 1e30) == Approx(expected_s));
  // ETP equal to TP: the TP group's collective, on TP's link.
  CHECK(mlp_forward_s(4, link_Bps) == Approx(mlp_forward_s(4, 1e30)));
}
