#pragma once
// The communication-bound decode speed limit of ISCA'25 §2.3.2: every device holds one expert
// and serves a few tokens; per EP step each token is dispatched to its experts (routed and
// shared) and combined back, and with dual micro-batch overlap a layer costs one EP step per
// micro-batch, compute hidden behind communication.
namespace workload {

enum class DecodeCompute {
  kNone,         // compute taken to zero: the IB bound
  kEqualToComm,  // each micro-batch computes for as long as the other communicates (NVL72 case)
};

struct DecodeBoundInput {
  double tokens_per_device = 0;
  double experts_per_token = 0;           // routed + shared
  double hidden = 0;                      // elements per token
  double dispatch_bytes_per_element = 1;  // FP8
  double combine_bytes_per_element = 2;   // BF16
  double link_Bps = 0;                    // per device, per direction
  int layers = 0;
  int micro_batches = 2;
  DecodeCompute compute = DecodeCompute::kNone;
};

struct DecodeBound {
  double bytes_per_ep_step = 0;  // sent by one device: dispatch + combine
  double comm_s_per_ep_step = 0;
  double compute_s_per_micro_batch = 0;
  double layer_s = 0;
  double tpot_s = 0;
  double tokens_per_s = 0;  // per user: one token per TPOT
};

DecodeBound decode_bound(const DecodeBoundInput& in);

}  // namespace workload
