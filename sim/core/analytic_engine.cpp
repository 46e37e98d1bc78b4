#include "core/analytic_engine.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace core {

Timeline evaluate_analytically(const TaskGraph& graph, const FlowSeconds& flow_seconds) {
  const auto& tasks = graph.tasks();
  std::vector<TaskSpan> spans(tasks.size());
  std::map<std::pair<int, Label>, double> stream_free_s;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    double ready = 0;
    for (TaskId d : t.deps) ready = std::max(ready, spans[static_cast<std::size_t>(d)].end_s);
    if (t.kind == TaskKind::kJoin) {
      spans[i] = {ready, ready};
      continue;
    }
    double& free_s = stream_free_s[{t.rank, t.stream}];
    const double start = std::max(ready, free_s);
    double duration = t.seconds;
    if (t.kind == TaskKind::kTransfer)
      for (const Flow& f : t.flows) duration = std::max(duration, flow_seconds(f));
    spans[i] = {start, start + duration};
    free_s = start + duration;
  }
  return Timeline(graph, std::move(spans));
}

Timeline evaluate_analytically(const TaskGraph& graph) {
  return evaluate_analytically(graph, [](const Flow&) { return 0.0; });
}

}  // namespace core
