#include "core/timeline.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace core {

Timeline::Timeline(const TaskGraph& graph, std::vector<TaskSpan> spans) : graph_(&graph), spans_(std::move(spans)) {
  if (spans_.size() != graph.tasks().size()) throw std::logic_error("timeline does not cover its task graph");
}

double Timeline::makespan_s() const {
  double end = 0;
  for (const auto& s : spans_) end = std::max(end, s.end_s);
  return end;
}

double Timeline::busy_s(int rank, const std::string& stream) const {
  double busy = 0;
  const auto& tasks = graph_->tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].rank == rank && graph_->stream(tasks[i]) == stream) busy += spans_[i].end_s - spans_[i].start_s;
  return busy;
}

std::vector<TaskId> Timeline::critical_path() const {
  const auto& tasks = graph_->tasks();
  if (tasks.empty()) return {};
  // Each task's predecessor on its (rank, stream): the engines run a stream's tasks in order.
  std::vector<TaskId> before(tasks.size(), -1);
  std::unordered_map<std::uint64_t, TaskId> last_on;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].kind == TaskKind::kJoin) continue;
    const auto key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(tasks[i].rank)) << 32) | tasks[i].stream;
    auto [it, added] = last_on.try_emplace(key, static_cast<TaskId>(i));
    if (!added) before[i] = std::exchange(it->second, static_cast<TaskId>(i));
  }
  TaskId at = 0;
  for (std::size_t i = 1; i < spans_.size(); ++i)
    if (spans_[i].end_s > spans_[static_cast<std::size_t>(at)].end_s) at = static_cast<TaskId>(i);
  std::vector<TaskId> path;
  while (at >= 0) {
    path.push_back(at);
    const auto& t = tasks[static_cast<std::size_t>(at)];
    TaskId next = before[static_cast<std::size_t>(at)];
    for (TaskId d : t.deps)
      if (next < 0 || spans_[static_cast<std::size_t>(d)].end_s > spans_[static_cast<std::size_t>(next)].end_s)
        next = d;
    at = next;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string Timeline::chrome_trace_json(const std::vector<int>& only) const {
  using nlohmann::json;
  json events = json::array();
  std::map<std::pair<int, Label>, int> thread_ids;
  const std::set<int> shown(only.begin(), only.end());
  const auto& tasks = graph_->tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    // Joins are bookkeeping, and a compute task taken to zero time would only clutter the view.
    if (t.kind == TaskKind::kJoin || (t.kind != TaskKind::kTransfer && t.seconds == 0)) continue;
    if (!shown.empty() && !shown.count(t.rank)) continue;
    auto [it, inserted] = thread_ids.try_emplace({t.rank, t.stream}, static_cast<int>(thread_ids.size()));
    if (inserted) {
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", t.rank},
                        {"tid", it->second},
                        {"args", {{"name", graph_->stream(t)}}}});
    }
    json e = {{"ph", "X"},
              {"name", graph_->name(t)},
              {"cat", t.kind == TaskKind::kCompute ? "compute"
                      : t.kind == TaskKind::kDelay ? "delay"
                                                   : "transfer"},
              {"pid", t.rank},
              {"tid", it->second},
              {"ts", spans_[i].start_s * 1e6},
              {"dur", (spans_[i].end_s - spans_[i].start_s) * 1e6}};
    if (t.kind == TaskKind::kTransfer) {
      double bytes = 0;
      for (const auto& f : t.flows) bytes += f.bytes * f.count;
      e["args"] = {{"flows", t.flows.size()}, {"bytes", bytes}};
    }
    events.push_back(std::move(e));
  }
  std::set<int> ranks;
  for (const auto& [key, tid] : thread_ids) ranks.insert(key.first);
  for (int rank : ranks)
    events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", rank}, {"args", {{"name", "GPU " + std::to_string(rank)}}}});
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump();
}

}  // namespace core
