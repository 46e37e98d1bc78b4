#pragma once
// How a training run splits over its GPUs (Megatron-Core's vocabulary): tensor parallelism (TP,
// with sequence parallelism: norms and residuals on sequence shards), context parallelism (CP:
// each sequence cut over GPUs, K/V passed around a ring), pipeline parallelism (PP, with VPP
// virtual stages per rank for the interleaved schedule), data parallelism (DP, with ZeRO stage 0
// to 3), and, for the MoE layers, expert parallelism folded over the same GPUs (Megatron-Core's
// MoE parallel folding): the routed experts spread over `ep` GPUs and each cut `etp` ways, the
// rest copies (expert DP), independently of attention's TP, CP and DP. tp x cp x pp x dp = GPUs,
// and etp x ep x expert DP = tp x cp x dp.
//
// Ranks are placed as Megatron-Core's two rank generators place them, over one order: attention's
// grid (tp, cp, dp, pp) and the experts' grid (etp, ep, expert DP, pp), both agreeing on the
// pipeline groups.
#include <string>
#include <vector>

#include "workload/parallel/rank_grid.hpp"

namespace workload {

enum class Recompute {
  kNone,       // every activation kept for the backward
  kSelective,  // norms (and MLA's up-projections) recomputed, as DeepSeek-V3 does (report §3.2.3)
  kFull,       // only each layer's input kept; the layer's forward rerun in the backward
};

struct TrainingParallelism {
  int gpus = 2048;
  int gpus_per_node = 8;
  int tp = 1;
  bool sequence_parallel = true;
  int cp = 1;
  int pp = 16;
  int vpp = 1;  // stages per rank of the interleaved schedule
  int dp = 128;
  int ep = 64;                        // etp x ep divides tp x cp x dp; 1: every GPU holds every expert
  int etp = 1;                        // the ways each expert is cut (its own TP)
  std::string schedule = "dualpipe";  // a ScheduleKind::name (workload/pipeline/schedule_registry.hpp)
  int zero = 1;
  Recompute recompute = Recompute::kSelective;
  // Attention as Megatron-LM ran it before FlashAttention (workload/training/unfused_attention.hpp):
  // the scores written to HBM, with dropout on the probabilities where `attention_dropout`.
  bool unfused_attention = false;
  bool attention_dropout = false;
  bool tp_comm_overlap = false;  // TP collectives hidden behind the block's GEMMs where they fit
  // DP traffic bucket by bucket behind compute, as Megatron-LM's overlap_grad_reduce and
  // overlap_param_gather (and FSDP's prefetch) run it: gradients behind the backward, weights
  // behind the forward; see data_parallel_sync.hpp.
  bool dp_comm_overlap = false;
  // Placement, innermost first: consecutive ranks differ in the first dimension. Megatron-Core's
  // default; the slots "tp", "ep" and "dp" of the experts' grid hold etp, ep and expert DP.
  std::vector<std::string> order = {"tp", "cp", "ep", "dp", "pp"};

  int dense_dp() const { return cp * dp; }                     // replicas of the dense weights
  int expert_dp() const { return tp * cp * dp / (etp * ep); }  // replicas of each expert shard
  // Pipeline stages: pp ranks, each holding vpp (interleaved) or two (DualPipeV) of them.
  int stages() const;

  // Both grids count the GPUs of a pipeline stage over the order's slots other than pp, and
  // place PP at one stride of them, the product of attention's slots before pp in the order.
  // Attention's slots are tp, cp, and dp split over the order's "ep" and "dp" slots: as many DP
  // replicas at the "ep" slot as the experts' EP group spans beyond a TP x CP group (so that
  // "tp-cp-ep-pp-dp" keeps an EP group inside each pipeline stage); the experts' slots hold etp,
  // 1, ep and expert DP. Where PP falls inside one of a grid's slots, that slot is split in two.
  int pipeline_stride() const;
  int dp_at_ep_slot() const;
  // Whether the experts' grid can place PP at that stride (only a size that is no power of two
  // can make it fall inside an expert slot at a point that does not divide it).
  bool experts_fit_pipeline_stride() const;
  // TP, CP, DP, PP and dense-DP groups are attention's grid's "tp", "cp", "dp", "pp" and dense_dp_dims();
  // EP, ETP and expert-DP groups are the experts' grid's "ep", "tp" and "dp".
  RankGrid attention_grid() const;
  RankGrid expert_grid() const;

  // GPUs of one group of `dim` that share a node (every group alike): the group's links are
  // NVLink when it is all of them, else the fabric.
  int members_per_node(const std::string& dim) const;                      // attention's grid
  int expert_members_per_node(const std::string& dim) const;               // the experts' grid
  std::vector<std::string> dense_dp_dims() const { return {"cp", "dp"}; }  // of attention's grid
};

// The placement dimension names, for validating an order.
const std::vector<std::string>& placement_dimensions();

}  // namespace workload
