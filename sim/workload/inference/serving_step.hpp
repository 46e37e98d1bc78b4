#pragma once
// One forward pass of a serving step with micro-batches overlapped (DeepSeek-V3 report §3.4):
// per layer, each micro-batch runs attention, dispatch, its experts and combine, and while one
// micro-batch communicates another computes. A GPU has a compute stream (attention, experts)
// and a communication stream (dispatch, combine, and PCIe fetches of offloaded KV cache); all
// GPUs of the unit behave alike, so one stands for them.
#include <vector>

#include "core/task_graph.hpp"

namespace workload {

// Seconds of one layer for one micro-batch. A dense layer has no dispatch or combine; its FFN
// is `expert_s`.
struct MicroBatchCosts {
  double kv_fetch_s = 0;  // offloaded KV cache brought over PCIe before attention
  double attention_s = 0;
  double dispatch_s = 0;
  double expert_s = 0;
  double combine_s = 0;
};

// Compute that runs while communication kernels hold SMs is slowed by `compute_slowdown`
// (1 when communication needs no SMs, as with IBGDA). Stream orders per layer:
//   compute: attention of each micro-batch in turn, then their experts;
//   comm:    each micro-batch's KV fetch and dispatch, then their combines.
core::TaskGraph serving_graph(const std::vector<MicroBatchCosts>& layers, int micro_batches, double compute_slowdown);

}  // namespace workload
