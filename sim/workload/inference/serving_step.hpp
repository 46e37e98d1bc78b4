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
// is `expert_s`. The last three are parts of the others that DeepSeek's deployed stage order
// places on their own.
struct MicroBatchCosts {
  double kv_fetch_s = 0;  // offloaded KV cache brought over PCIe before attention
  double attention_s = 0;
  double dispatch_s = 0;
  double expert_s = 0;
  double combine_s = 0;
  double attention_late_s = 0;  // of attention_s: decode's ATTN-1 (core attention, output projection)
  double gate_s = 0;            // of expert_s: the MoE router, which runs before the dispatch
  double shared_s = 0;          // of expert_s: the shared expert on this GPU's own tokens
  double memory_kernels_s = 0;  // of attention_s and expert_s: the memory-bound kernels between the GEMMs
  double tp_comm_s = 0;         // of attention_s and expert_s: a TP group's all-gathers and reduce-scatters (NVLink)
  // For reports that part a layer as a profiler does (not in any schedule):
  double core_attention_s = 0;  // of attention_s: the attention kernel itself (FlashMLA, FlashAttention)
  double expert_memory_s =
      0;                // of expert_s and memory_kernels_s: those after the dispatch (permutes, SwiGLU, residual)
  double swiglu_s = 0;  // of expert_memory_s: an MoE layer's SwiGLU with its cast (experts' and shared expert's)

  // An MoE layer's costs: it routes (a gate) or sends (an all-to-all); a dense layer does neither.
  bool moe() const { return dispatch_s > 0 || combine_s > 0 || gate_s > 0; }
};

// How micro-batches overlap. `kTwoStreams`: per layer, each micro-batch's attention in turn,
// then their experts; each dispatch follows its attention and each combine its experts on the
// communication stream. `kDeployed`: DeepSeek's own stage order (notes/serving.md, from its
// profile-data README), two micro-batches: decode in five stages with attention split in two,
// prefill with the shared expert beside the all-to-alls, each stage boundary waiting for the
// transfer it needs, so an all-to-all that outlasts the stages hiding it shows as exposed time.
enum class Overlap { kTwoStreams, kDeployed };

// Compute that runs while communication kernels hold SMs is slowed by `compute_slowdown`
// (1 when communication needs no SMs, as with IBGDA). kDeployed needs two micro-batches.
core::TaskGraph serving_graph(const std::vector<MicroBatchCosts>& layers, int micro_batches, double compute_slowdown,
                              Overlap overlap = Overlap::kTwoStreams, bool prefill = false);
// The same graph's makespan, as evaluated analytically, without building it.
double serving_makespan_s(const std::vector<MicroBatchCosts>& layers, int micro_batches, double compute_slowdown,
                          Overlap overlap = Overlap::kTwoStreams, bool prefill = false);

}  // namespace workload
