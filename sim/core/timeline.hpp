#pragma once
// What a simulation did: the start and end of every task of its TaskGraph, and summaries of
// it. Exports a Chrome trace (JSON Trace Event Format) that Perfetto and chrome://tracing open.
#include <string>
#include <vector>

#include "core/task_graph.hpp"

namespace core {

struct TaskSpan {
  double start_s = 0;
  double end_s = 0;
};

class Timeline {
 public:
  Timeline(const TaskGraph& graph, std::vector<TaskSpan> spans);

  const TaskGraph& graph() const { return *graph_; }
  const std::vector<TaskSpan>& spans() const { return spans_; }
  const TaskSpan& span(TaskId id) const { return spans_.at(static_cast<std::size_t>(id)); }
  double makespan_s() const;
  // Time a rank's stream spends in its tasks.
  double busy_s(int rank, const std::string& stream) const;
  // The chain of tasks that set the makespan, from the first to the one that ends last: each
  // task's predecessor is what it waited for last, a dependency or the task before it on its
  // stream.
  std::vector<TaskId> critical_path() const;

  // Chrome trace as a string: one process per rank, one thread per stream, microseconds; only
  // `ranks`' tasks where some are named (one pipeline of a whole cluster's step).
  std::string chrome_trace_json(const std::vector<int>& ranks = {}) const;

 private:
  const TaskGraph* graph_;
  std::vector<TaskSpan> spans_;
};

}  // namespace core
