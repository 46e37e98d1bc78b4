#pragma once
// A training step of the whole cluster as one task graph, for the flow model: every pipeline
// (one per TP, CP, EP and DP coordinate, its ranks on the GPUs the rank grid places them on)
// with its PP sends over the fabric's routes, and each pipeline rank's data-parallel
// synchronisation (data_parallel_sync.hpp) in the same run. A rank's synchronisation starts
// once its last chunk has ended on every replica (with dp_comm_overlap, once that chunk starts;
// the weights' all-gather then hides behind the next step's first forward chunk), while other
// ranks are still draining, and its rings share the fabric with their PP sends.
// With the EP traffic given, every step runs op by op (TrainingStep::step_op_graph) on its GPU's
// compute and communication streams, each dispatch and combine a transfer of the GPU's flows to
// its EP peers (from its group's routed traffic, see EpInStep) that ends when its group's has,
// after the kernels the op runs before it sends (combine(B)'s cast): the EP traffic shares the
// fabric with the PP sends and the synchronisation. Without it, each MoE layer's all-to-alls
// are simulated on the whole fabric per micro-batch (ep_comm.hpp) and their times run inside the
// chunks'.
#include <vector>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"
#include "net/fabric.hpp"
#include "workload/model/roofline.hpp"
#include "workload/training/collective_waits.hpp"
#include "workload/training/data_parallel_sync.hpp"
#include "workload/training/training_step.hpp"

namespace workload {

struct ClusterStepGraph {
  core::TaskGraph graph;
  std::vector<std::vector<int>> pipelines;       // each pipeline's GPUs, by pipeline rank
  std::vector<PipelineSteps> steps;              // per pipeline
  std::vector<DataParallelTasks> data_parallel;  // per pipeline rank
  // Where GPUs meet: each pipeline rank's synchronisation start, over its replicas, and with the
  // EP traffic in the run, each EP group's dispatches and combines.
  std::vector<StepCollective> collectives;
};

// The step's EP all-to-alls in its run: each group's routed traffic, and each group's op times
// from the per-micro-batch run (all groups at once).
struct EpInStep {
  const EpTraffic& traffic;
  const EpCommTimes& times;
  // Every flow as routed, each ending when it does: the reference. Else each op's flows of a
  // stage at their group's mean size (the group's bytes, spread evenly), the op lasting at least
  // its group's time per micro-batch: the bytes load the links as the op does, the flows of a
  // group end together (a solve per op and component, not one per flow), and the op stretches
  // past its time when what shares its links slows them enough.
  bool per_flow = false;
};

// Every pipeline rank is on every pipeline's GPU at that rank; run it on the whole cluster's fabric.
ClusterStepGraph cluster_step_graph(const TrainingStep& step, const OptimizerSetup& optimizer, const Roofline& roofline,
                                    const EpInStep* ep = nullptr);

// What the run gives the step's rows.
struct ClusterStepResult {
  double pipeline_s = 0;  // the end of the last pipeline's last chunk
  double step_s = 0;      // with the data-parallel synchronisation the step waits for
  int pipeline = 0;       // the pipeline that ends last, whose ranks the breakdown reports
  int dp_rank = 0;        // the pipeline rank whose synchronisation ends last
  DataParallelTimes dp;   // its phases, as they ran
};
ClusterStepResult cluster_step_result(const ClusterStepGraph& graph, const TrainingStep& step,
                                      const core::Timeline& timeline);

// One pipeline's step tasks as a PipelineGraph view (without the graph), for TrainingStep::breakdown.
PipelineGraph pipeline_view(const ClusterStepGraph& graph, int pipeline);

}  // namespace workload
