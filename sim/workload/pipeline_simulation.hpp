#pragma once
// Runs a pipeline schedule on the engine: each rank's steps in its order on its compute stream,
// each activation (forward) and gradient (backward) crossing ranks as a transfer over the
// platform, and measures step time, bubbles, in-flight activations and parameter copies.
#include <functional>
#include <vector>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"
#include "net/cluster.hpp"
#include "workload/pipeline_schedule.hpp"

namespace workload {

struct PassTimes {
  double forward_s = 0;     // F
  double backward_s = 0;    // B: full backward (input + weight)
  double weight_s = 0;      // W; an input-only backward B* takes backward_s - weight_s
  double overlapped_s = 0;  // F&B: a forward and a backward chunk run overlapped
};

struct PipelineGraph {
  core::TaskGraph graph;
  std::vector<std::vector<core::TaskId>> step_tasks;  // per rank, per step
};

PipelineGraph pipeline_graph(const Schedule& schedule, const PassTimes& times, double transfer_bytes);

// The same with each step's time given by `step_seconds`: for stages of different costs (the
// stage of a chunk is its `position`) and for overlapped pairs of different stages.
using StepSeconds = std::function<double(const Step&)>;
PipelineGraph pipeline_graph(const Schedule& schedule, const StepSeconds& step_seconds, double transfer_bytes);

// Adds one pipeline to `graph` with its rank r on GPU gpus[r] (a pipeline of a cluster, beside
// the others); returns its step tasks, per rank, per step.
std::vector<std::vector<core::TaskId>> append_pipeline(core::TaskGraph& graph, const Schedule& schedule,
                                                       const StepSeconds& step_seconds, double transfer_bytes,
                                                       const std::vector<int>& gpus);

struct PipelineMetrics {
  double step_s = 0;           // the end of the pipeline's last step
  std::vector<double> idle_s;  // per rank: step time not spent computing
  double bubble_s = 0;         // idle time of the critical (most idle) rank
  int critical_rank = 0;
  std::vector<int> peak_activations;  // per rank, in chunks (one stage of one micro-batch)
  int max_peak_activations = 0;
  int parameter_copies = 1;  // stages held per rank
};

PipelineMetrics pipeline_metrics(const Schedule& schedule, const PipelineGraph& graph, const core::Timeline& timeline);

// Peak number of forward chunks whose backward has not run yet, per rank, from the order alone.
std::vector<int> peak_activations(const Schedule& schedule);

}  // namespace workload
