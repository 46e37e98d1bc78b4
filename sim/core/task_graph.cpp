#include "core/task_graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace core {

Label TaskGraph::intern(const std::string& text) {
  const auto [it, added] = label_of_.try_emplace(text, static_cast<Label>(labels_.size()));
  if (added) labels_.push_back(text);
  return it->second;
}

TaskId TaskGraph::add(Task task) {
  const auto id = static_cast<TaskId>(tasks_.size());
  for (TaskId dep : task.deps)
    if (dep < 0 || dep >= id) throw std::logic_error("task '" + name(task) + "' depends on a task not yet added");
  max_rank_ = std::max(max_rank_, task.rank);
  for (const auto& f : task.flows) {
    if (f.src_rank == f.dst_rank) throw std::logic_error("task '" + name(task) + "' has a flow from a rank to itself");
    if (f.bytes < 0) throw std::logic_error("task '" + name(task) + "' has a flow of negative size");
    if (f.count < 1) throw std::logic_error("task '" + name(task) + "' has a flow standing for fewer than one");
    flow_count_ += static_cast<std::size_t>(f.count);
    max_rank_ = std::max({max_rank_, f.src_rank, f.dst_rank});
  }
  tasks_.push_back(std::move(task));
  return id;
}

TaskId TaskGraph::add_compute(const std::string& name, int rank, const std::string& stream, double seconds,
                              std::vector<TaskId> deps) {
  if (!(seconds >= 0)) throw std::logic_error("compute task '" + name + "' has a negative duration");
  return add(Task{TaskKind::kCompute, rank, intern(name), intern(stream), seconds, {}, std::move(deps)});
}

TaskId TaskGraph::add_delay(const std::string& name, int rank, const std::string& stream, double seconds,
                            std::vector<TaskId> deps) {
  if (!(seconds >= 0)) throw std::logic_error("delay '" + name + "' has a negative duration");
  return add(Task{TaskKind::kDelay, rank, intern(name), intern(stream), seconds, {}, std::move(deps)});
}

TaskId TaskGraph::add_transfer(const std::string& name, int rank, const std::string& stream, std::vector<Flow> flows,
                               std::vector<TaskId> deps) {
  return add(Task{TaskKind::kTransfer, rank, intern(name), intern(stream), 0, std::move(flows), std::move(deps)});
}

TaskId TaskGraph::append(const TaskGraph& other, int rank_offset, const std::vector<TaskId>& after) {
  const auto base = static_cast<TaskId>(tasks_.size());
  std::vector<TaskId> all;
  for (const Task& t : other.tasks_) {
    Task copy = t;
    copy.name = intern(other.label(t.name));
    copy.stream = intern(other.label(t.stream));
    if (copy.rank >= 0) copy.rank += rank_offset;
    for (auto& f : copy.flows) {
      f.src_rank += rank_offset;
      f.dst_rank += rank_offset;
    }
    for (auto& d : copy.deps) d += base;
    if (copy.deps.empty()) copy.deps = after;
    all.push_back(add(std::move(copy)));
  }
  return add_join("end", std::move(all));
}

TaskId TaskGraph::add_join(const std::string& name, std::vector<TaskId> deps) {
  return add(Task{TaskKind::kJoin, -1, intern(name), 0, 0, {}, std::move(deps)});
}

}  // namespace core
