#include "core/task_graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace core {

TaskId TaskGraph::add(Task task) {
  const auto id = static_cast<TaskId>(tasks_.size());
  for (TaskId dep : task.deps)
    if (dep < 0 || dep >= id) throw std::logic_error("task '" + task.name + "' depends on a task not yet added");
  max_rank_ = std::max(max_rank_, task.rank);
  for (const auto& f : task.flows) {
    if (f.src_rank == f.dst_rank) throw std::logic_error("task '" + task.name + "' has a flow from a rank to itself");
    if (f.bytes < 0) throw std::logic_error("task '" + task.name + "' has a flow of negative size");
    if (f.count < 1) throw std::logic_error("task '" + task.name + "' has a flow standing for fewer than one");
    flow_count_ += static_cast<std::size_t>(f.count);
    max_rank_ = std::max({max_rank_, f.src_rank, f.dst_rank});
  }
  tasks_.push_back(std::move(task));
  return id;
}

TaskId TaskGraph::add_compute(std::string name, int rank, std::string stream, double seconds, std::vector<TaskId> deps) {
  if (!(seconds >= 0)) throw std::logic_error("compute task '" + name + "' has a negative duration");
  return add(Task{TaskKind::kCompute, std::move(name), rank, std::move(stream), seconds, {}, std::move(deps)});
}

TaskId TaskGraph::add_transfer(std::string name, int rank, std::string stream, std::vector<Flow> flows,
                               std::vector<TaskId> deps) {
  return add(Task{TaskKind::kTransfer, std::move(name), rank, std::move(stream), 0, std::move(flows), std::move(deps)});
}

TaskId TaskGraph::add_join(std::string name, std::vector<TaskId> deps) {
  return add(Task{TaskKind::kJoin, std::move(name), -1, "", 0, {}, std::move(deps)});
}

}  // namespace core
