#pragma once
// Evaluates a TaskGraph without simulating the network: each flow of a transfer takes the time
// `flow_seconds` gives it, as if it were alone on its links, and a transfer ends with its
// slowest flow. As in the SimGrid engine, the tasks of one (rank, stream) run one at a time in
// the order they were added, and each waits for its dependencies. This is the analytical mode:
// microseconds where a flow simulation takes seconds, and exact when no two flows share a link.
#include <functional>

#include "core/task_graph.hpp"
#include "core/timeline.hpp"

namespace core {

using FlowSeconds = std::function<double(const Flow&)>;

Timeline evaluate_analytically(const TaskGraph& graph, const FlowSeconds& flow_seconds);

// Flows cost nothing: for graphs of compute tasks alone.
Timeline evaluate_analytically(const TaskGraph& graph);

}  // namespace core
