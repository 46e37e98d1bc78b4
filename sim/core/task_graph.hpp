#pragma once
// The work a simulation executes: a DAG of tasks placed on ranks (GPUs). A compute task holds
// its rank's `stream` for a given time, longer where the GPU is slow (core/compute_slowdown); a
// delay holds it for a fixed time spent elsewhere (an all-to-all's floor), whatever the GPU; a
// transfer task starts a set of flows at once and ends when the last one arrives; a join is a
// zero-time barrier. The tasks of one (rank, stream) run one at a time in the order they were
// added, like kernels on a CUDA stream, and each also waits for its dependencies (which are
// always tasks added before it).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace core {

using TaskId = int;

struct Flow {
  int src_rank = 0;
  int dst_rank = 0;
  double bytes = 0;  // per flow
  // Identical flows this entry stands for (same GPUs, bytes and start), each with its own share
  // of the links: one merged sender of n NICs sends n flows, not one flow of n times the bytes,
  // which max-min sharing would give one share. The fluid engine bundles them at the cost of one.
  int count = 1;
};

enum class TaskKind { kCompute, kDelay, kTransfer, kJoin };

// Names and streams are labels of the graph (TaskGraph::label): a step of a whole cluster has
// millions of tasks and a few hundred distinct names.
using Label = std::uint32_t;

struct Task {
  TaskKind kind = TaskKind::kJoin;
  int rank = -1;  // the GPU it runs on (the source of a transfer); -1 for a join
  Label name = 0;
  Label stream = 0;         // e.g. "compute", "comm": one track per rank and stream in a trace
  double seconds = 0;       // compute and delay only
  std::vector<Flow> flows;  // transfer only
  std::vector<TaskId> deps;
};

class TaskGraph {
 public:
  TaskId add_compute(const std::string& name, int rank, const std::string& stream, double seconds,
                     std::vector<TaskId> deps);
  TaskId add_delay(const std::string& name, int rank, const std::string& stream, double seconds,
                   std::vector<TaskId> deps);
  TaskId add_transfer(const std::string& name, int rank, const std::string& stream, std::vector<Flow> flows,
                      std::vector<TaskId> deps);
  TaskId add_join(const std::string& name, std::vector<TaskId> deps);

  // Adds `other`'s tasks, its ranks shifted by `rank_offset` (a collective built on GPUs 0..n-1,
  // run on a job's GPUs), those with no dependency waiting for `after`; returns a join of them.
  TaskId append(const TaskGraph& other, int rank_offset, const std::vector<TaskId>& after);

  const std::vector<Task>& tasks() const { return tasks_; }
  const std::string& label(Label l) const { return labels_[l]; }
  const std::string& name(const Task& t) const { return labels_[t.name]; }
  const std::string& stream(const Task& t) const { return labels_[t.stream]; }
  std::size_t flow_count() const { return flow_count_; }  // with each entry's count
  int max_rank() const { return max_rank_; }

 private:
  TaskId add(Task task);
  Label intern(const std::string& text);
  std::vector<Task> tasks_;
  std::vector<std::string> labels_{""};
  std::unordered_map<std::string, Label> label_of_{{"", 0}};
  std::size_t flow_count_ = 0;
  int max_rank_ = -1;
};

}  // namespace core
