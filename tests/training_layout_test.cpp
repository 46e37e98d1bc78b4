// The general training step: rank placement, TP, CP, ZeRO stages and recomputation.
#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "workload/data_parallel_sync.hpp"
#include "workload/rank_grid.hpp"
#include "workload/stage_layout.hpp"
#include "workload/training_step.hpp"

using namespace workload;

namespace {

const Model& llama() { return model_by_name("llama-3.1-405b"); }

TrainingParallelism dense_layout(int tp, int cp, int pp, int dp) {
  TrainingParallelism par;
  par.tp = tp;
  par.cp = cp;
  par.pp = pp;
  par.dp = dp;
  par.ep = 1;
  par.gpus = tp * cp * pp * dp;
  par.schedule = "1f1b";
  return par;
}

// A middle layer of a step on H100s in BF16 (the roofline: every kernel's time is linear in its work).
LayerChunks layer_of(const TrainingParallelism& par, GroupLinks links, Recompute recompute = Recompute::kNone) {
  TrainingParallelism p = par;
  p.recompute = recompute;
  TrainingBatch batch{p.dp * 4, 8192, 1};
  const Roofline roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, false);
  const TrainingStep step(llama(), roofline, p, batch, balanced_stage_layout(llama(), p.stages(), false, 8192, "/pp"), {}, 132, 0,
                          std::nullopt, links);
  return step.stages()[1].layers[1];
}

constexpr double kFree = 1e30;  // links so fast that communication takes no time

}  // namespace

TEST_CASE("a rank grid numbers ranks innermost first and groups those that differ in one dimension", "[layout]") {
  const RankGrid grid({{"tp", 2}, {"cp", 1}, {"ep", 1}, {"dp", 3}, {"pp", 2}});
  CHECK(grid.ranks() == 12);
  CHECK(grid.stride("dp") == 2);
  CHECK(grid.stride("pp") == 6);
  CHECK(grid.groups({"tp"}).front() == std::vector<int>{0, 1});
  CHECK(grid.groups({"dp"}).size() == 4);
  CHECK(grid.groups({"dp"}).front() == std::vector<int>{0, 2, 4});
  CHECK(grid.groups({"pp"}).back() == std::vector<int>{5, 11});
  CHECK(RankGrid::members_per_node({0, 2, 4, 6}, 4) == 2);
  CHECK(RankGrid::members_per_node({0, 8, 16}, 8) == 1);
}

TEST_CASE("TP and CP cut a layer's compute exactly when their communication is free", "[layout]") {
  const LayerChunks one = layer_of(dense_layout(1, 1, 4, 1), {kFree, kFree});
  const LayerChunks tp4 = layer_of(dense_layout(4, 1, 4, 1), {kFree, kFree});
  CHECK(tp4.forward.attention_s == Approx(one.forward.attention_s / 4));
  CHECK(tp4.forward.mlp_s == Approx(one.forward.mlp_s / 4));
  CHECK(tp4.backward.mlp_weight_s == Approx(one.backward.mlp_weight_s / 4));
  const LayerChunks cp2 = layer_of(dense_layout(1, 2, 4, 1), {kFree, kFree});
  CHECK(cp2.forward.attention_s == Approx(one.forward.attention_s / 2));
  CHECK(cp2.backward.attention_input_s == Approx(one.backward.attention_input_s / 2));
}

TEST_CASE("TP's collectives move each block's activations twice per pass", "[layout]") {
  const double link_Bps = 100e9;
  const LayerChunks free = layer_of(dense_layout(4, 1, 4, 1), {kFree, kFree});
  const LayerChunks tp4 = layer_of(dense_layout(4, 1, 4, 1), {link_Bps, kFree});
  // All-gather and reduce-scatter of the block's BF16 activations (3/4 of them cross), two blocks.
  const double block_s = 2 * 3.0 / 4 * 2.0 * llama().hidden * 8192 / link_Bps;
  CHECK(tp4.tp_forward_s == Approx(2 * block_s));
  CHECK(tp4.tp_backward_s == Approx(2 * block_s));
  CHECK(tp4.forward.attention_s + tp4.forward.mlp_s == Approx(free.forward.attention_s + free.forward.mlp_s + 2 * block_s));
  // Overlapped with the GEMMs, only what outlasts them shows.
  auto overlapped = dense_layout(4, 1, 4, 1);
  overlapped.tp_comm_overlap = true;
  CHECK(layer_of(overlapped, {link_Bps, kFree}).tp_forward_s < tp4.tp_forward_s);
}

TEST_CASE("CP's K/V ring shows only where it outlasts the attention kernels", "[layout]") {
  const LayerChunks fast = layer_of(dense_layout(1, 4, 4, 1), {kFree, 1e15});
  CHECK(fast.cp_forward_s == 0);
  const LayerChunks slow = layer_of(dense_layout(1, 4, 4, 1), {kFree, 1e8});
  // K and V of 8 KV heads of 128 in BF16 per token, three of four shards passed.
  const double ring_s = 3.0 / 4 * 2.0 * 2 * 8 * 128 * 8192 / 1e8;
  CHECK(slow.cp_forward_s > 0.9 * ring_s);
  CHECK(slow.cp_forward_s < ring_s);
}

TEST_CASE("full recomputation reruns the forward before the backward", "[layout]") {
  const auto par = dense_layout(2, 1, 4, 1);
  const GroupLinks links{200e9, kFree};
  const LayerChunks none = layer_of(par, links, Recompute::kNone);
  const LayerChunks full = layer_of(par, links, Recompute::kFull);
  CHECK(full.backward.attention_input_s == Approx(none.backward.attention_input_s + none.forward.attention_s));
  CHECK(full.backward.mlp_input_s == Approx(none.backward.mlp_input_s + none.forward.mlp_s));
  CHECK(full.backward.mlp_weight_s == Approx(none.backward.mlp_weight_s));
  // Selective recomputes the norms: more than none, far less than full.
  const LayerChunks selective = layer_of(par, links, Recompute::kSelective);
  CHECK(selective.backward.attention_input_s > none.backward.attention_input_s);
  CHECK(selective.backward.attention_input_s < full.backward.attention_input_s);
}

TEST_CASE("ZeRO stages: 0 all-reduces the gradients, 3 gathers the weights twice", "[layout]") {
  auto par = dense_layout(8, 1, 2, 4);
  par.gpus_per_node = 8;
  DataParallelSetup s{{1e9, 0}, par, OptimizerSetup{}, net::FabricSpec{}, false};
  s.fabric.kind = net::FabricKind::kMultiRail;
  const Roofline roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, false);
  const auto one = data_parallel_times(s, roofline);
  // A TP group fills each node, so the 4 replicas of each weight shard are on 4 nodes.
  CHECK(one.reduce_scatter_s == Approx(3.0 / 4 * 4e9 / s.fabric.nic_Bps));
  CHECK(one.all_gather_s == Approx(one.reduce_scatter_s / 2));
  s.parallelism.zero = 0;
  const auto zero = data_parallel_times(s, roofline);
  CHECK(zero.all_gather_s == Approx(zero.reduce_scatter_s));
  CHECK(zero.optimizer_s == Approx(4 * one.optimizer_s));
  s.parallelism.zero = 3;
  CHECK(data_parallel_times(s, roofline).all_gather_s == Approx(2 * one.all_gather_s));
}
