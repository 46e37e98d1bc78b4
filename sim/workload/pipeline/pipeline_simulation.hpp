#pragma once
// Runs a pipeline schedule on the engine: each rank's steps in its order on its compute stream,
// each activation (forward) and gradient (backward) crossing ranks as a transfer over the
// platform, and measures step time, bubbles, in-flight activations and parameter copies.
#include <functional>
#include <vector>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"
#include "net/cluster.hpp"
#include "workload/pipeline/pipeline_schedule.hpp"

namespace workload {

struct PassTimes {
  double forward_s = 0;     // F
  double backward_s = 0;    // B: full backward (input + weight)
  double weight_s = 0;      // W; an input-only backward B* takes backward_s - weight_s
  double overlapped_s = 0;  // F&B: a forward and a backward chunk run overlapped
};

// Where each step of a pipeline is in its graph, per rank, per step: the task it starts with,
// and the one it ends with (the same task where a step is one compute task; the step's ops and
// their transfers in between where it is more).
struct PipelineSteps {
  std::vector<std::vector<core::TaskId>> step_tasks;
  std::vector<std::vector<core::TaskId>> step_ends;
  // From the start of the step's first task to the end of its last.
  core::TaskSpan span(const core::Timeline& timeline, int rank, std::size_t step) const;
};

struct PipelineGraph : PipelineSteps {
  core::TaskGraph graph;
};

PipelineGraph pipeline_graph(const Schedule& schedule, const PassTimes& times, double transfer_bytes);

// The same with each step's time given by `step_seconds`: for stages of different costs (the
// stage of a chunk is its `position`) and for overlapped pairs of different stages.
using StepSeconds = std::function<double(const Step&)>;
PipelineGraph pipeline_graph(const Schedule& schedule, const StepSeconds& step_seconds, double transfer_bytes);

// Adds the tasks of one step to `graph`, for every pipeline at once (they run the same schedule):
// on gpus[p], the step's GPU in pipeline p, each task waiting at least for deps[p] (the
// activations or gradients it takes, and the rank's step before). Returns per pipeline the first
// task (which starts with the step) and the last (which ends with it).
struct StepTaskRange {
  core::TaskId first = -1, end = -1;
};
using StepBuilder =
    std::function<std::vector<StepTaskRange>(core::TaskGraph& graph, const Step& step, const std::vector<int>& gpus,
                                             const std::vector<std::vector<core::TaskId>>& deps)>;
// Each step one compute task of step_seconds(step) on the GPU's compute stream, named by its token.
StepBuilder compute_steps(StepSeconds step_seconds, bool show_lane = false);

// Adds one pipeline to `graph` with its rank r on GPU gpus[r] (a pipeline of a cluster, beside
// the others), each step built by `build`.
PipelineSteps append_pipeline(core::TaskGraph& graph, const Schedule& schedule, const StepBuilder& build,
                              double transfer_bytes, const std::vector<int>& gpus);
// Several pipelines of the same schedule, pipelines[p][r] the GPU of pipeline p's rank r.
std::vector<PipelineSteps> append_pipelines(core::TaskGraph& graph, const Schedule& schedule, const StepBuilder& build,
                                            double transfer_bytes, const std::vector<std::vector<int>>& pipelines);

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
