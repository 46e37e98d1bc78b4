#pragma once
// Data parallelism at the end of a step, by ZeRO stage: gradients reduce-scattered over the
// replicas and the weights all-gathered back after each GPU's optimizer updates its shard
// (ZeRO 1 and 2; ZeRO 2 also keeps only its shard of the gradients), gradients all-reduced and
// every GPU updating all its weights (ZeRO 0), or ZeRO 1's traffic plus the all-gather of every
// layer's weights again for the backward (ZeRO 3, which keeps no whole weights between layers;
// counted exposed, without prefetch). Each group (the dense weights' replicas, and each expert
// shard's) is placed by the rank grid and synchronised hierarchically: a ring over NVLink among
// the members that share a node, then rings over the fabric, one per in-node index. The phases
// run one after the other, timed on the whole fabric (flow mode) or by the ring's closed form.
#include "net/fabric.hpp"
#include "workload/roofline.hpp"
#include "workload/training_step.hpp"

namespace workload {

struct DataParallelSetup {
  RankParameters parameters;  // of the GPU that holds the most
  TrainingParallelism parallelism;
  OptimizerSetup optimizer;
  net::FabricSpec fabric;  // the whole cluster: gpus / gpus_per_node nodes
  bool flow = true;
};

DataParallelTimes data_parallel_times(const DataParallelSetup& setup, const Roofline& roofline);

// What of them the step waits for. Without overlap, all. With it (dp_comm_overlap), on the rank
// that finishes last (the first stage's): the gradient reduce-scatter (or ZeRO 0's all-reduce,
// and ZeRO 3's backward all-gather) behind its last backward chunk, the weight all-gather behind
// the next step's first forward chunk; the optimizer step between them stays exposed.
double exposed_data_parallel_s(const DataParallelTimes& t, int zero, bool overlap, double forward_chunk_s,
                               double backward_chunk_s);

}  // namespace workload
