#include "workload/inference/decode_bound.hpp"

#include <algorithm>

namespace workload {

DecodeBound decode_bound(const DecodeBoundInput& in) {
  DecodeBound b;
  b.bytes_per_ep_step = (in.dispatch_bytes_per_element + in.combine_bytes_per_element) * in.tokens_per_device *
                        in.experts_per_token * in.hidden;
  b.comm_s_per_ep_step = b.bytes_per_ep_step / in.link_Bps;
  b.compute_s_per_micro_batch = in.compute == DecodeCompute::kEqualToComm ? b.comm_s_per_ep_step : 0.0;
  // Overlapped micro-batches: while one communicates the other computes, so each micro-batch
  // adds the longer of the two to the layer.
  b.layer_s = in.micro_batches * std::max(b.comm_s_per_ep_step, b.compute_s_per_micro_batch);
  b.tpot_s = in.layers * b.layer_s;
  b.tokens_per_s = 1.0 / b.tpot_s;
  return b;
}

}  // namespace workload
