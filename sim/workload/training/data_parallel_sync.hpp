#pragma once
// Data parallelism at the end of a step, by ZeRO stage: gradients reduce-scattered over the
// replicas and the weights all-gathered back after each GPU's optimizer updates its shard
// (ZeRO 1 and 2; ZeRO 2 also keeps only its shard of the gradients), gradients all-reduced and
// every GPU updating all its weights (ZeRO 0), or ZeRO 1's traffic plus the all-gather of every
// layer's weights again for the backward (ZeRO 3, which keeps no whole weights between layers;
// counted exposed, without prefetch). Each group (the dense weights' replicas, and each expert
// shard's) is placed by the rank grid and synchronised hierarchically: a ring over NVLink among
// the members that share a node, then rings over the fabric, one per in-node index. The phases
// run one after the other, timed on the whole fabric (flow mode) or by the ring's closed form;
// or added, as tasks, to a cluster's step graph (cluster_step.hpp).
#include <utility>
#include <vector>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"
#include "net/fabric.hpp"
#include "workload/model/roofline.hpp"
#include "workload/training/training_step.hpp"

namespace workload {

struct DataParallelSetup {
  RankParameters parameters;  // of the GPU that holds the most
  TrainingParallelism parallelism;
  OptimizerSetup optimizer;
  net::FabricSpec fabric;  // the whole cluster: gpus / gpus_per_node nodes
  bool flow = true;
};

DataParallelTimes data_parallel_times(const DataParallelSetup& setup, const Roofline& roofline);

// The synchronisation as tasks of a cluster's step graph (cluster_step.hpp), for the GPUs of one
// pipeline rank (`gpus`, every replica's: their dense and expert groups), holding
// setup.parameters each: the gradients' reduce-scatter (ZeRO 0: all-reduce; ZeRO 3: with the
// backward's weight all-gather) once every GPU's `gradients_ready` task has ended, each GPU's
// optimizer step on its compute stream once the reduce-scatter and its `last_step` have ended,
// then the weights' all-gather (ZeRO 1-3). Phases in the order data_parallel_times runs them.
enum class DataParallelPhase { kReduceScatter, kAllGather, kOptimizer };
struct DataParallelTasks {
  core::TaskId start = -1;                                         // the gradients are ready
  std::vector<std::pair<DataParallelPhase, core::TaskId>> phases;  // each phase's end, in the order they run
  double optimizer_s = 0;                                          // each GPU's optimizer step

  core::TaskId end() const { return phases.empty() ? start : phases.back().second; }
  // The phases' times as they ran; the optimizer's is its own, not the wait for the last step.
  DataParallelTimes times(const core::Timeline& timeline) const;
};
DataParallelTasks append_data_parallel_sync(core::TaskGraph& graph, const DataParallelSetup& setup,
                                            const Roofline& roofline, const std::vector<int>& gpus,
                                            const std::vector<core::TaskId>& gradients_ready,
                                            const std::vector<core::TaskId>& last_step);

// What of them the step waits for. Without overlap, all. With it (dp_comm_overlap), on the rank
// that finishes last (the first stage's): the gradient reduce-scatter (or ZeRO 0's all-reduce,
// and ZeRO 3's backward all-gather) behind its last backward chunk, the weight all-gather behind
// the next step's first forward chunk; the optimizer step between them stays exposed.
double exposed_data_parallel_s(const DataParallelTimes& t, int zero, bool overlap, double forward_chunk_s,
                               double backward_chunk_s);

}  // namespace workload
