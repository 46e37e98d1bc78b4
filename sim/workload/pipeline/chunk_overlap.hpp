#pragma once
// DualPipe's overlap of one forward and one backward chunk (DeepSeek-V3 report Figure 4): the
// chunks' components (attention, all-to-all dispatch, MLP, all-to-all combine, PP send; the
// backward's attention and MLP split into input and weight parts) rearranged on a compute
// stream and a communication stream. Communication kernels hold `comm_sms` of the GPU's SMs,
// so compute that runs beside them slows by sms / (sms - comm_sms).
#include "core/task_graph.hpp"
#include "hw/node.hpp"

namespace workload {

struct ForwardChunk {
  double attention_s = 0, dispatch_s = 0, mlp_s = 0, combine_s = 0, pp_s = 0;
};

struct BackwardChunk {
  double attention_input_s = 0, attention_weight_s = 0, dispatch_s = 0, mlp_input_s = 0, mlp_weight_s = 0,
         combine_s = 0, pp_s = 0;
  double combine_cast_s = 0;  // of combine_s: the gradients' cast before they are sent
};

struct ChunkPair {
  ForwardChunk forward;
  BackwardChunk backward;
  int sms = hw::default_node().gpu_model().sm_count;
  int comm_sms = 20;
};

// Compute times are given with every SM computing; communication times with comm_sms SMs
// communicating. Stream orders, as read from Figure 4:
//   compute: ATTN(F), MLP(B), MLP(W), MLP(F), ATTN(B), ATTN(W)
//   comm:    COMBINE(B), DISPATCH(F), DISPATCH(B), COMBINE(F), PP(F), PP(B)
core::TaskGraph overlapped_chunk_pair(const ChunkPair& pair);

// The same two chunks one after the other, each component waiting for the previous one, with
// every SM computing during compute: the time without overlap.
double serial_chunk_pair_s(const ChunkPair& pair);

}  // namespace workload
