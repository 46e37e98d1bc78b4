#include "workload/pipeline/pipeline_simulation.hpp"

#include <algorithm>

#include "workload/pipeline/schedule_check.hpp"

namespace workload {

namespace {

double step_seconds(const Step& step, const PassTimes& t) {
  if (step.chunks.size() == 2) return t.overlapped_s;
  switch (step.chunks[0].pass) {
    case Pass::kForward:
      return t.forward_s;
    case Pass::kBackward:
      return t.backward_s;
    case Pass::kBackwardInput:
      return t.backward_s - t.weight_s;
    case Pass::kWeight:
      return t.weight_s;
  }
  return 0;
}

}  // namespace

PipelineGraph pipeline_graph(const Schedule& s, const PassTimes& times, double transfer_bytes) {
  return pipeline_graph(
      s, [&times](const Step& step) { return step_seconds(step, times); }, transfer_bytes);
}

PipelineGraph pipeline_graph(const Schedule& s, const StepSeconds& seconds_of, double transfer_bytes) {
  PipelineGraph out;
  std::vector<int> gpus(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) gpus[static_cast<std::size_t>(r)] = r;
  static_cast<PipelineSteps&>(out) =
      append_pipeline(out.graph, s, compute_steps(seconds_of, s.show_lane), transfer_bytes, gpus);
  return out;
}

core::TaskSpan PipelineSteps::span(const core::Timeline& timeline, int rank, std::size_t step) const {
  const auto r = static_cast<std::size_t>(rank);
  return {timeline.span(step_tasks[r][step]).start_s, timeline.span(step_ends[r][step]).end_s};
}

StepBuilder compute_steps(StepSeconds seconds_of, bool show_lane) {
  return [seconds_of = std::move(seconds_of), show_lane](core::TaskGraph& g, const Step& step,
                                                         const std::vector<int>& gpus,
                                                         const std::vector<std::vector<core::TaskId>>& deps) {
    const double seconds = seconds_of(step);
    std::vector<StepTaskRange> out;
    for (std::size_t p = 0; p < gpus.size(); ++p) {
      const auto task = g.add_compute(token(step, show_lane), gpus[p], "compute", seconds, deps[p]);
      out.push_back({task, task});
    }
    return out;
  };
}

PipelineSteps append_pipeline(core::TaskGraph& g, const Schedule& s, const StepBuilder& build, double transfer_bytes,
                              const std::vector<int>& gpus) {
  return std::move(append_pipelines(g, s, build, transfer_bytes, {gpus}).front());
}

std::vector<PipelineSteps> append_pipelines(core::TaskGraph& g, const Schedule& s, const StepBuilder& build,
                                            double transfer_bytes, const std::vector<std::vector<int>>& pipelines) {
  const std::size_t n = pipelines.size();
  std::vector<PipelineSteps> out(n);
  // Per pipeline, per (flow, position): the task after which the forward's output (resp. the
  // backward's gradient) is available on the rank that consumes it, and the rank's own B* for its W.
  using Ready = std::vector<std::vector<core::TaskId>>;
  std::vector<Ready> forward_ready(n, Ready(s.paths.size())), backward_ready = forward_ready,
                                                              input_backward = forward_ready;
  for (std::size_t p = 0; p < n; ++p) {
    out[p].step_tasks.resize(static_cast<std::size_t>(s.ranks));
    out[p].step_ends.resize(static_cast<std::size_t>(s.ranks));
    for (std::size_t f = 0; f < s.paths.size(); ++f) {
      forward_ready[p][f].assign(s.paths[f].size(), -1);
      backward_ready[p][f].assign(s.paths[f].size(), -1);
      input_backward[p][f].assign(s.paths[f].size(), -1);
    }
  }
  // Tasks are added in an order that respects every rank's order (its compute stream runs them
  // in that order) and every data dependency; a step of every pipeline at once, as the pipelines
  // run the same schedule (so that a step's builder may tie them, e.g. by a collective).
  std::vector<int> gpus(n);
  std::vector<std::vector<core::TaskId>> deps(n);
  for (const auto& [rank, index] : execution_order(s)) {
    const Step& step = s.steps[rank][index];
    const auto r = static_cast<std::size_t>(rank);
    for (std::size_t p = 0; p < n; ++p) {
      gpus[p] = pipelines[p].at(r);
      deps[p].clear();
      for (const auto& c : step.chunks) {
        const int last = static_cast<int>(s.paths[c.flow].size()) - 1;
        if (c.pass == Pass::kForward && c.position > 0) deps[p].push_back(forward_ready[p][c.flow][c.position - 1]);
        if ((c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) && c.position < last)
          deps[p].push_back(backward_ready[p][c.flow][c.position + 1]);
        if (c.pass == Pass::kWeight) deps[p].push_back(input_backward[p][c.flow][c.position]);
      }
      // A step of several tasks (ops on several streams) waits for the rank's step before to end.
      if (!out[p].step_ends[r].empty()) deps[p].push_back(out[p].step_ends[r].back());
    }
    const auto ranges = build(g, step, gpus, deps);
    for (std::size_t p = 0; p < n; ++p) {
      out[p].step_tasks[r].push_back(ranges[p].first);
      out[p].step_ends[r].push_back(ranges[p].end);
      const auto task = ranges[p].end;
      auto gpu = [&](int rank) { return pipelines[p].at(static_cast<std::size_t>(rank)); };
      // Send what this step produced to the rank of the next stage on its path.
      for (const auto& c : step.chunks) {
        const int last = static_cast<int>(s.paths[c.flow].size()) - 1;
        int to = -1;
        auto* ready = &forward_ready[p];
        if (c.pass == Pass::kForward && c.position < last) {
          to = s.paths[c.flow][c.position + 1];
        } else if (c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) {
          if (c.pass == Pass::kBackwardInput) input_backward[p][c.flow][c.position] = task;
          ready = &backward_ready[p];
          if (c.position > 0) to = s.paths[c.flow][c.position - 1];
        }
        if (to < 0) continue;
        (*ready)[c.flow][c.position] =
            to == rank
                ? task
                : g.add_transfer(
                      (c.pass == Pass::kForward ? "activation " : "gradient ") + token(Step{{c}}, s.show_lane),
                      gpu(rank), "send to " + std::to_string(gpu(to)), {{gpu(rank), gpu(to), transfer_bytes}}, {task});
      }
    }
  }
  return out;
}

std::vector<int> peak_activations(const Schedule& s) {
  std::vector<int> peaks(s.ranks, 0);
  for (int r = 0; r < s.ranks; ++r) {
    int live = 0;
    for (const auto& step : s.steps[r])
      for (const auto& c :
           step.chunks) {  // in an F&B pair the forward's activation exists before the backward frees one
        if (c.pass == Pass::kForward) peaks[r] = std::max(peaks[r], ++live);
        if (c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) --live;
      }
  }
  return peaks;
}

PipelineMetrics pipeline_metrics(const Schedule& s, const PipelineGraph& pg, const core::Timeline& timeline) {
  PipelineMetrics m;
  // The pipeline's own end: the graph may go on after it (a cluster's data-parallel traffic).
  for (const auto& ends : pg.step_ends)
    for (auto id : ends) m.step_s = std::max(m.step_s, timeline.span(id).end_s);
  m.idle_s.resize(s.ranks);
  for (int r = 0; r < s.ranks; ++r) {
    double busy = 0;
    for (std::size_t i = 0; i < pg.step_tasks[r].size(); ++i) {
      const auto span = pg.span(timeline, r, i);
      busy += span.end_s - span.start_s;
    }
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
