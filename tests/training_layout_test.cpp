// The general training step: rank placement, TP, CP, ZeRO stages and recomputation.
#include <catch2/catch.hpp>

#include "hw/all_reduce.hpp"
#include "hw/gpu.hpp"
#include "workload/parallel/rank_grid.hpp"
#include "workload/training/data_parallel_sync.hpp"
#include "workload/training/stage_layout.hpp"
#include "workload/training/training_memory.hpp"
#include "workload/training/training_step.hpp"

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

// A middle layer of a step in BF16: on A100s with DeepGEMM's constants (which do not run there)
// every GEMM and attention kernel is the roofline's, linear in its work, and the memory-bound
// kernels add their launch floor; on H100s GEMMs come from the kernel model, in tiles and waves.
LayerChunks layer_of(const TrainingParallelism& par, GroupLinks links, Recompute recompute = Recompute::kNone,
                     const std::string& gpu = "A100") {
  TrainingParallelism p = par;
  p.recompute = recompute;
  TrainingBatch batch{p.dp * 4, 8192, 1};
  const Roofline roofline(hw::gpu_by_name(gpu), KernelEfficiency{}, false);
  const TrainingStep step(llama(), roofline, p, batch, balanced_stage_layout(llama(), p.stages(), false, 8192, "/pp"),
                          {}, 132, 0, std::nullopt, links);
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
  // The memory-bound kernels' launch floors (2.6 us each on Ampere) are not cut: each shard keeps
  // them whole, under 0.1% of these layers.
  CHECK(tp4.forward.attention_s > one.forward.attention_s / 4);
  CHECK(tp4.forward.attention_s == Approx(one.forward.attention_s / 4).epsilon(1e-3));
  CHECK(tp4.forward.mlp_s > one.forward.mlp_s / 4);
  CHECK(tp4.forward.mlp_s == Approx(one.forward.mlp_s / 4).epsilon(1e-3));
  CHECK(tp4.backward.mlp_weight_s == Approx(one.backward.mlp_weight_s / 4));
  const LayerChunks cp2 = layer_of(dense_layout(1, 2, 4, 1), {kFree, kFree});
  CHECK(cp2.forward.attention_s == Approx(one.forward.attention_s / 2).epsilon(1e-3));
  CHECK(cp2.backward.attention_input_s == Approx(one.backward.attention_input_s / 2).epsilon(1e-3));
  // Tiles and waves: shards are never faster than a perfect cut, and close to it at these sizes.
  const LayerChunks h100_one = layer_of(dense_layout(1, 1, 4, 1), {kFree, kFree}, Recompute::kNone, "H100");
  const LayerChunks h100_tp4 = layer_of(dense_layout(4, 1, 4, 1), {kFree, kFree}, Recompute::kNone, "H100");
  CHECK(h100_tp4.forward.mlp_s >= h100_one.forward.mlp_s / 4);
  CHECK(h100_tp4.forward.mlp_s < 1.1 * h100_one.forward.mlp_s / 4);
}

TEST_CASE("TP's collectives move each block's activations twice per pass", "[layout]") {
  const double link_Bps = 100e9;
  const LayerChunks free = layer_of(dense_layout(4, 1, 4, 1), {kFree, kFree});
  const LayerChunks tp4 = layer_of(dense_layout(4, 1, 4, 1), {link_Bps, kFree});
  // All-gather and reduce-scatter of the block's BF16 activations (3/4 of them cross), two blocks.
  const double block_s = 2 * 3.0 / 4 * 2.0 * llama().hidden * 8192 / link_Bps;
  CHECK(tp4.tp_forward_s == Approx(2 * block_s));
  CHECK(tp4.tp_backward_s == Approx(2 * block_s));
  CHECK(tp4.forward.attention_s + tp4.forward.mlp_s ==
        Approx(free.forward.attention_s + free.forward.mlp_s + 2 * block_s));
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

namespace {

TrainingStep dense_step(TrainingParallelism par, int micro_batches = 8) {
  static const Roofline roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, false);
  TrainingBatch batch{par.dp * micro_batches, 8192, 1};
  return TrainingStep(llama(), roofline, par, batch, balanced_stage_layout(llama(), par.stages(), false, 8192, "/pp"),
                      {}, 132, 0, std::nullopt, {kFree, kFree});
}

}  // namespace

TEST_CASE("sequence parallelism cuts every activation over TP; without it norms and residuals stay whole",
          "[layout][memory]") {
  auto par = dense_layout(1, 1, 4, 1);
  par.recompute = Recompute::kNone;
  const double one = layer_activation_bytes(llama(), false, par, 8192, 8192, false).total();
  par.tp = 8;
  CHECK(layer_activation_bytes(llama(), false, par, 8192, 8192, false).total() == Approx(one / 8));
  par.sequence_parallel = false;
  CHECK(layer_activation_bytes(llama(), false, par, 8192, 8192, false).total() > one / 8 * 1.2);
  // A GPT-shaped count: with TP and SP, 34 bytes per token and hidden unit over TP (Korthikanti
  // et al. 2022), 32 without dropout; LLaMA's GQA saves 3.5 of them, its 3.25h SwiGLU adds 3.5.
  par.sequence_parallel = true;
  const double per_sbh =
      layer_activation_bytes(llama(), false, par, 8192, 8192, false).total() / (8192.0 * llama().hidden / 8);
  CHECK(per_sbh > 30);
  CHECK(per_sbh < 38);
}

TEST_CASE("1F1B holds pp micro-batches on its first rank; full recomputation keeps only layer inputs",
          "[layout][memory]") {
  auto par = dense_layout(8, 1, 4, 2);
  const TrainingStep step = dense_step(par);
  const OptimizerSetup o;
  const auto mem = training_memory(step, o, false, 0);
  CHECK(mem.peak_micro_batches == 4);
  par.recompute = Recompute::kFull;
  const auto full = training_memory(dense_step(par), o, false, 0);
  CHECK(full.activations_B < mem.activations_B / 5);
  CHECK(full.weights_B == Approx(mem.weights_B));
}

TEST_CASE("ZeRO shards the optimizer states (1), then the gradients (2), then the weights (3)", "[layout][memory]") {
  auto par = dense_layout(8, 1, 4, 4);
  const OptimizerSetup o;
  std::vector<TrainingMemory> by_stage;
  for (int zero = 0; zero <= 3; ++zero) {
    par.zero = zero;
    by_stage.push_back(training_memory(dense_step(par), o, false, 0));
  }
  CHECK(by_stage[1].optimizer_B == Approx(by_stage[0].optimizer_B / 4));
  CHECK(by_stage[1].gradients_B == Approx(by_stage[0].gradients_B));
  CHECK(by_stage[2].gradients_B == Approx(by_stage[0].gradients_B / 4));
  CHECK(by_stage[2].weights_B == Approx(by_stage[0].weights_B));
  CHECK(by_stage[3].weights_B == Approx(by_stage[0].weights_B / 4));
  // Unsharded, 2 + 4 + 12 bytes per parameter.
  CHECK(by_stage[0].weights_B / 2 == Approx(by_stage[0].optimizer_B / 12));
}

TEST_CASE("a rank's group holds the ranks its grid's groups put with it", "[layout]") {
  const RankGrid grid({{"tp", 4}, {"cp", 2}, {"ep", 2}, {"dp", 3}, {"pp", 2}});
  for (const std::vector<std::string>& varying :
       {std::vector<std::string>{"tp"}, {"cp", "ep", "dp"}, {"pp"}, {"cp", "dp"}})
    for (const auto& group : grid.groups(varying))
      for (int r : group) CHECK(grid.group_of(r, varying) == group);
}

TEST_CASE("overlapped DP traffic shows only where it outlasts the chunks it hides behind", "[layout]") {
  const DataParallelTimes t{0.3, 0.01, 0.15};  // reduce-scatter, optimizer, all-gather
  CHECK(exposed_data_parallel_s(t, 1, false, 0.1, 0.2) == Approx(0.46));
  // ZeRO 1: 0.3 behind a 0.2 s backward, 0.15 behind a 0.1 s forward.
  CHECK(exposed_data_parallel_s(t, 1, true, 0.1, 0.2) == Approx(0.1 + 0.01 + 0.05));
  CHECK(exposed_data_parallel_s(t, 1, true, 1.0, 1.0) == Approx(0.01));
  // ZeRO 0: the whole all-reduce behind the backward; ZeRO 3: half the gathers in each pass.
  CHECK(exposed_data_parallel_s(t, 0, true, 1.0, 0.2) == Approx(0.25 + 0.01));
  CHECK(exposed_data_parallel_s(t, 3, true, 0.0, 0.2) == Approx(0.175 + 0.01 + 0.075));
}

TEST_CASE("TP within a node with a measured all-reduce: its collectives as NCCL timed them, not the ring", "[layout]") {
  // LLaMA at TP 4: each block's all-gather and reduce-scatter of 2 x hidden x tokens bytes, as
  // the DGX A100's fitted all-reduce of those bytes (a fixed time a call and its bus bandwidth).
  const auto par = dense_layout(4, 1, 2, 1);
  const hw::AllReduceFit* nccl = hw::all_reduce_for("dgx-a100");
  REQUIRE(nccl != nullptr);
  GroupLinks ring{240e9, kFree}, measured = ring;
  measured.tp_all_reduce = nccl;
  const LayerChunks by_ring = layer_of(par, ring), by_nccl = layer_of(par, measured);
  const double bytes = 2.0 * llama().hidden * 8192;
  CHECK(by_ring.tp_forward_s == Approx(2 * 2 * 3.0 / 4 * bytes / 240e9));  // two blocks, each AG + RS
  CHECK(by_nccl.tp_forward_s == Approx(2 * nccl->seconds(4, bytes)));
  CHECK(by_nccl.tp_forward_s > by_ring.tp_forward_s);  // 158 GB/s and 36 us a call against 240 GB/s
  // The fit is the node's: a TP group within one node takes it, one across nodes the NICs' ring.
  auto spread = par;
  spread.gpus_per_node = 8;
  CHECK(group_links(spread, 240e9, 25e9, nccl).tp_all_reduce == nccl);
  spread.gpus_per_node = 2;
  CHECK(group_links(spread, 240e9, 25e9, nccl).tp_all_reduce == nullptr);
  CHECK(group_links(spread, 240e9, 25e9, nccl).tp_Bps == 25e9);
}
