#include "workload/pipeline_simulation.hpp"

#include <algorithm>

#include "workload/schedule_check.hpp"

namespace workload {

namespace {

double step_seconds(const Step& step, const PassTimes& t) {
  if (step.chunks.size() == 2) return t.overlapped_s;
  switch (step.chunks[0].pass) {
    case Pass::kForward: return t.forward_s;
    case Pass::kBackward: return t.backward_s;
    case Pass::kBackwardInput: return t.backward_s - t.weight_s;
    case Pass::kWeight: return t.weight_s;
  }
  return 0;
}

}  // namespace

PipelineGraph pipeline_graph(const Schedule& s, const PassTimes& times, double transfer_bytes) {
  return pipeline_graph(s, [&times](const Step& step) { return step_seconds(step, times); }, transfer_bytes);
}

PipelineGraph pipeline_graph(const Schedule& s, const StepSeconds& seconds_of, double transfer_bytes) {
  PipelineGraph out;
  std::vector<int> gpus(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) gpus[static_cast<std::size_t>(r)] = r;
  out.step_tasks = append_pipeline(out.graph, s, seconds_of, transfer_bytes, gpus);
  return out;
}

std::vector<std::vector<core::TaskId>> append_pipeline(core::TaskGraph& g, const Schedule& s, const StepSeconds& seconds_of,
                                                       double transfer_bytes, const std::vector<int>& gpus) {
  std::vector<std::vector<core::TaskId>> step_tasks(static_cast<std::size_t>(s.ranks));
  auto gpu = [&](int rank) { return gpus.at(static_cast<std::size_t>(rank)); };
  // Per (flow, position): the task after which the forward's output (resp. the backward's
  // gradient) is available on the rank that consumes it, and the rank's own B* for its W.
  std::vector<std::vector<core::TaskId>> forward_ready(s.paths.size()), backward_ready(s.paths.size()),
      input_backward(s.paths.size());
  for (std::size_t f = 0; f < s.paths.size(); ++f) {
    forward_ready[f].assign(s.paths[f].size(), -1);
    backward_ready[f].assign(s.paths[f].size(), -1);
    input_backward[f].assign(s.paths[f].size(), -1);
  }
  // Tasks are added in an order that respects every rank's order (its compute stream runs them
  // in that order) and every data dependency.
  for (const auto& [rank, index] : execution_order(s)) {
    const Step& step = s.steps[rank][index];
    std::vector<core::TaskId> deps;
    for (const auto& c : step.chunks) {
      const int last = static_cast<int>(s.paths[c.flow].size()) - 1;
      if (c.pass == Pass::kForward && c.position > 0) deps.push_back(forward_ready[c.flow][c.position - 1]);
      if ((c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) && c.position < last)
        deps.push_back(backward_ready[c.flow][c.position + 1]);
      if (c.pass == Pass::kWeight) deps.push_back(input_backward[c.flow][c.position]);
    }
    const auto task = g.add_compute(token(step, s.show_lane), gpu(rank), "compute", seconds_of(step), deps);
    step_tasks[static_cast<std::size_t>(rank)].push_back(task);
    // Send what this step produced to the rank of the next stage on its path.
    for (const auto& c : step.chunks) {
      const int last = static_cast<int>(s.paths[c.flow].size()) - 1;
      int to = -1;
      auto* ready = &forward_ready;
      if (c.pass == Pass::kForward && c.position < last) {
        to = s.paths[c.flow][c.position + 1];
      } else if (c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) {
        if (c.pass == Pass::kBackwardInput) input_backward[c.flow][c.position] = task;
        ready = &backward_ready;
        if (c.position > 0) to = s.paths[c.flow][c.position - 1];
      }
      if (to < 0) continue;
      (*ready)[c.flow][c.position] =
          to == rank ? task
                     : g.add_transfer((c.pass == Pass::kForward ? "activation " : "gradient ") + token(Step{{c}}, s.show_lane),
                                      gpu(rank), "send to " + std::to_string(gpu(to)), {{gpu(rank), gpu(to), transfer_bytes}}, {task});
    }
  }
  return step_tasks;
}

std::vector<int> peak_activations(const Schedule& s) {
  std::vector<int> peaks(s.ranks, 0);
  for (int r = 0; r < s.ranks; ++r) {
    int live = 0;
    for (const auto& step : s.steps[r])
      for (const auto& c : step.chunks) {  // in an F&B pair the forward's activation exists before the backward frees one
        if (c.pass == Pass::kForward) peaks[r] = std::max(peaks[r], ++live);
        if (c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) --live;
      }
  }
  return peaks;
}

PipelineMetrics pipeline_metrics(const Schedule& s, const PipelineGraph& pg, const core::Timeline& timeline) {
  PipelineMetrics m;
  // The pipeline's own end: the graph may go on after it (a cluster's data-parallel traffic).
  for (const auto& tasks : pg.step_tasks)
    for (auto id : tasks) m.step_s = std::max(m.step_s, timeline.span(id).end_s);
  m.idle_s.resize(s.ranks);
  for (int r = 0; r < s.ranks; ++r) {
    double busy = 0;
    for (auto id : pg.step_tasks[r]) busy += timeline.span(id).end_s - timeline.span(id).start_s;
    m.idle_s[r] = m.step_s - busy;
    if (m.idle_s[r] > m.bubble_s) {
      m.bubble_s = m.idle_s[r];
      m.critical_rank = r;
    }
  }
  m.peak_activations = peak_activations(s);
  m.max_peak_activations = *std::max_element(m.peak_activations.begin(), m.peak_activations.end());
  m.parameter_copies = s.stages_per_rank;
  return m;
}

}  // namespace workload
