#include "workload/cluster_step.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace workload {

ClusterStepGraph cluster_step_graph(const TrainingStep& step, const OptimizerSetup& optimizer, const Roofline& roofline) {
  const auto& par = step.parallelism();
  const auto& schedule = step.schedule();
  ClusterStepGraph out;
  out.pipelines = par.grid().groups({"pp"});  // sorted: a pipeline's GPUs by pipeline rank
  const StepSeconds seconds = [&step](const Step& s) { return step.step_seconds(s); };
  for (const auto& gpus : out.pipelines)
    out.step_tasks.push_back(append_pipeline(out.graph, schedule, seconds, step.pp_transfer_bytes(), gpus));

  const net::FabricSpec rates;  // the rings' rates come from the platform the graph runs on
  for (int rank = 0; rank < schedule.ranks; ++rank) {
    std::vector<int> gpus;
    std::vector<core::TaskId> ready, last;
    for (std::size_t p = 0; p < out.pipelines.size(); ++p) {
      const auto& tasks = out.step_tasks[p][static_cast<std::size_t>(rank)];
      if (tasks.empty()) throw std::logic_error("pipeline rank " + std::to_string(rank) + " runs no step");
      gpus.push_back(out.pipelines[p][static_cast<std::size_t>(rank)]);
      last.push_back(tasks.back());
      // Overlapped, the gradients go out behind the last chunk: from its start (the end of the one before).
      ready.push_back(par.dp_comm_overlap && tasks.size() > 1 ? tasks[tasks.size() - 2] : tasks.back());
    }
    DataParallelSetup setup{step.rank_parameters(rank), par, optimizer, rates, true};
    out.data_parallel.push_back(append_data_parallel_sync(out.graph, setup, roofline, gpus, ready, last));
  }
  return out;
}

ClusterStepResult cluster_step_result(const ClusterStepGraph& g, const TrainingStep& step, const core::Timeline& timeline) {
  ClusterStepResult r;
  for (std::size_t p = 0; p < g.step_tasks.size(); ++p)
    for (const auto& tasks : g.step_tasks[p])
      for (auto id : tasks)
        if (timeline.span(id).end_s > r.pipeline_s) {
          r.pipeline_s = timeline.span(id).end_s;
          r.pipeline = static_cast<int>(p);
        }
  r.step_s = r.pipeline_s;
  double latest = -1;
  for (std::size_t rank = 0; rank < g.data_parallel.size(); ++rank) {
    const auto& dp = g.data_parallel[rank];
    double end_s = timeline.span(dp.end()).end_s;
    if (step.parallelism().dp_comm_overlap && step.parallelism().zero > 0) {
      // The weights' all-gather runs behind the next step's first chunk, when that is a forward.
      const Step& first = step.schedule().steps[rank].front();
      const double hidden_s = first.chunks.size() == 1 && first.chunks[0].pass == Pass::kForward ? step.step_seconds(first) : 0;
      double optimizer_end_s = end_s;
      for (const auto& [phase, id] : dp.phases)
        if (phase == DataParallelPhase::kOptimizer) optimizer_end_s = timeline.span(id).end_s;
      end_s = std::max(optimizer_end_s, end_s - hidden_s);
    }
    r.step_s = std::max(r.step_s, end_s);
    if (end_s > latest) {
      latest = end_s;
      r.dp_rank = static_cast<int>(rank);
      r.dp = dp.times(timeline);
    }
  }
  return r;
}

PipelineGraph pipeline_view(const ClusterStepGraph& g, int pipeline) {
  PipelineGraph view;
  view.step_tasks = g.step_tasks.at(static_cast<std::size_t>(pipeline));
  return view;
}

}  // namespace workload
