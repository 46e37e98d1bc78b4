#pragma once
// Time of a decode attention kernel (FlashDecoding-style: FlashInfer's batch decode, FlashAttention's
// split-KV path, TensorRT-LLM's generated kernels): each sequence's KV head is one unit of work that
// reads its keys and values once, with the query heads that share it. Units fewer than the SMs
// split their keys into chunks of `split_tokens` over the idle SMs, and a second kernel merges
// the parts. A call costs its launch, the merge where it splits, a fixed cost per unit on each SM
// (waves of units), and its bytes at a share of the HBM rate; an SM alone streams at most
// `sm_stream_share` times its even share of that rate, so a call of few units cannot reach it.
// A last wave's idle SMs are not charged: the SMs hold several units at once, and a kernel
// splits long keys to balance them (a whole-wave tail gave a GQA check 17% too slow).
// The constants are fitted once per kernel to its published rates (share of HBM by batch and
// context); the shares carry to other GPUs by their datasheets, the fixed costs unchanged.
#include <string>
#include <vector>

#include "hw/gpu.hpp"

namespace hw {

struct DecodeAttentionCalibration {
  double launch_s = 0;         // per call
  double merge_s = 0;          // per call that splits its keys
  double unit_s = 0;           // per (sequence, KV head, split) on an SM
  double hbm_share = 0;        // of the GPU's HBM bandwidth, all SMs streaming
  double sm_stream_share = 1;  // an SM's most, over its even share of that rate
  double split_tokens = 256;   // the least keys a split takes
  bool valid() const { return hbm_share > 0; }
};

// One call: `sequences` each reading `kv_heads` heads of about `context_tokens` keys, `kv_bytes`
// in all (keys and values, every sequence and head).
struct DecodeAttentionShape {
  double sequences = 0, kv_heads = 0, context_tokens = 0, kv_bytes = 0;
};

struct DecodeAttentionTime {
  double seconds = 0;
  double units = 0, splits = 1, waves = 0;
  double stream_s = 0, fixed_s = 0;  // the bytes at the rate; the launch, merge and units
  double compute_s = 0;              // the FLOPs on the tensor cores, where a caller bounds by them
  std::string bound() const {
    return compute_s >= stream_s + fixed_s ? "compute" : stream_s >= fixed_s ? "memory" : "launch";
  }
};

DecodeAttentionTime decode_attention_time(const Gpu& gpu, const DecodeAttentionShape& shape, int sms,
                                          const DecodeAttentionCalibration& c);

// One published rate: a decode call's bytes over its time, as a share of the measuring GPU's HBM.
struct DecodeAttentionMeasurement {
  DecodeAttentionShape shape;
  double head_dim = 0, heads = 0;  // as the source gives them (its query heads)
  double hbm_share = 0;
};
// Our share of HBM for a row, on all of `gpu`'s SMs.
double decode_attention_share(const Gpu& gpu, const DecodeAttentionMeasurement& row,
                              const DecodeAttentionCalibration& c);

const std::vector<std::string>& decode_attention_constant_names();
double& decode_attention_constant(DecodeAttentionCalibration& c, const std::string& name);

struct DecodeAttentionFit {
  DecodeAttentionCalibration constants;
  double rms_log_error = 0;
};
// Least squares of the log of our share over theirs (Levenberg-Marquardt over the logs of the
// constants named), the others kept as they start.
DecodeAttentionFit fit_decode_attention(const Gpu& gpu, const std::vector<DecodeAttentionMeasurement>& rows,
                                        const DecodeAttentionCalibration& start,
                                        const std::vector<std::string>& fitted);

}  // namespace hw
