#pragma once
// How a training run splits over its GPUs (Megatron-LM's vocabulary): tensor parallelism (TP,
// with sequence parallelism: norms and residuals on sequence shards), context parallelism (CP:
// each sequence cut over GPUs, K/V passed around a ring), pipeline parallelism (PP, with VPP
// virtual stages per rank for the interleaved schedule), data parallelism (DP, with ZeRO stage 0
// to 3), and expert parallelism (EP: the routed experts of a layer spread over `ep` GPUs of the
// data-parallel dimension, each expert cut `etp` ways). tp x cp x pp x dp = GPUs.
#include <string>
#include <vector>

#include "workload/rank_grid.hpp"

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
  int ep = 64;  // divides dp; 1: every GPU holds every expert
  int etp = 1;  // 1 or tp
  std::string schedule = "dualpipe";  // 1f1b, 1f1b-interleaved, zb1p, dualpipe, dualpipev
  int zero = 1;
  Recompute recompute = Recompute::kSelective;
  bool tp_comm_overlap = false;  // TP collectives hidden behind the block's GEMMs where they fit
  // DP traffic bucket by bucket behind compute, as Megatron-LM's overlap_grad_reduce and
  // overlap_param_gather (and FSDP's prefetch) run it: gradients behind the backward, weights
  // behind the forward; see data_parallel_sync.hpp.
  bool dp_comm_overlap = false;
  // Placement, innermost first: consecutive ranks differ in the first dimension.
  std::vector<std::string> order = {"tp", "cp", "ep", "pp", "dp"};

  int dense_dp() const { return cp * dp; }                  // replicas of the dense weights
  int expert_dp() const { return tp * cp * dp / (etp * ep); }  // replicas of each expert shard
  // Pipeline stages: pp ranks, each holding vpp (interleaved) or two (DualPipeV) of them.
  int stages() const;
  // The GPUs as a grid of dimensions tp, cp, ep, dp (dp / ep of them: EP is carved from DP) and pp.
  RankGrid grid() const;
  // GPUs of one group of `dim` that share a node (every group alike): the group's links are
  // NVLink when it is all of them, else the fabric.
  int members_per_node(const std::string& dim) const;
  std::vector<std::string> dense_dp_dims() const { return {"cp", "ep", "dp"}; }
  std::vector<std::string> expert_dp_dims() const;
};

// The placement dimension names, for validating an order.
const std::vector<std::string>& placement_dimensions();

}  // namespace workload
