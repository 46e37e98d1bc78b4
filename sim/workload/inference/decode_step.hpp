#pragma once
// One decode step (all layers, one output token) as a task graph for the engine: per layer and
// micro-batch, a compute task, then a dispatch all-to-all (each device sends its tokens to the
// devices of their experts) and a combine all-to-all back. Dual micro-batch overlap: each rank
// has a compute stream and a comm stream, so one micro-batch computes while the other
// communicates. Each device's tokens go to `experts_per_token` devices `stride` apart, so with
// stride = GPUs per node every flow leaves the node, as the paper's IB bound assumes.
#include "core/task_graph.hpp"
#include "workload/inference/decode_bound.hpp"

namespace workload {

struct DecodeStepLayout {
  int devices = 0;
  int stride = 1;  // distance in ranks between a device and its first expert device
};

core::TaskGraph decode_step_graph(const DecodeBoundInput& in, const DecodeStepLayout& layout);

}  // namespace workload
