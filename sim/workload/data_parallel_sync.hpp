#pragma once
// ZeRO-1 data parallelism at the end of a step: gradients reduce-scattered over the replicas,
// each GPU's optimizer updating its shard, weights all-gathered back. Dense weights have one
// replica per GPU of a pipeline stage, hierarchically: a ring inside each node over NVLink, then
// rings of the stage's nodes over IB, one per in-node index (plane or rail). Routed experts have
// `expert_dp` replicas, on nodes of the same stage with the same in-node index. The phases run
// one after the other, timed on the whole fabric (flow mode) or by the ring's closed form.
#include "net/fabric.hpp"
#include "workload/roofline.hpp"
#include "workload/training_step.hpp"

namespace workload {

struct DataParallelSetup {
  RankParameters parameters;  // of the rank that holds the most
  TrainingParallelism parallelism;
  OptimizerSetup optimizer;
  net::FabricSpec fabric;  // the whole cluster: gpus / gpus_per_node nodes, stages on consecutive nodes
  bool flow = true;
};

DataParallelTimes data_parallel_times(const DataParallelSetup& setup, const Roofline& roofline);

}  // namespace workload
