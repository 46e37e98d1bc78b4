#pragma once
// The work a simulation executes: a DAG of tasks placed on ranks (GPUs). A compute task holds
// its rank's `stream` for a given time; a transfer task starts a set of flows at once and ends
// when the last one arrives; a join is a zero-time barrier. The tasks of one (rank, stream)
// run one at a time in the order they were added, like kernels on a CUDA stream, and each also
// waits for its dependencies (which are always tasks added before it).
#include <string>
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

enum class TaskKind { kCompute, kTransfer, kJoin };

struct Task {
  TaskKind kind = TaskKind::kJoin;
  std::string name;
  int rank = -1;       // the GPU it runs on (the source of a transfer); -1 for a join
  std::string stream;  // e.g. "compute", "comm": one track per rank and stream in a trace
  double seconds = 0;  // compute only
  std::vector<Flow> flows;  // transfer only
  std::vector<TaskId> deps;
};

class TaskGraph {
 public:
  TaskId add_compute(std::string name, int rank, std::string stream, double seconds, std::vector<TaskId> deps);
  TaskId add_transfer(std::string name, int rank, std::string stream, std::vector<Flow> flows, std::vector<TaskId> deps);
  TaskId add_join(std::string name, std::vector<TaskId> deps);

  const std::vector<Task>& tasks() const { return tasks_; }
  std::size_t flow_count() const { return flow_count_; }  // with each entry's count
  int max_rank() const { return max_rank_; }

 private:
  TaskId add(Task task);
  std::vector<Task> tasks_;
  std::size_t flow_count_ = 0;
  int max_rank_ = -1;
};

}  // namespace core
