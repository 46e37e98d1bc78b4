#pragma once
// The GEMMs of one transformer layer as the kernels run them, for the kernel model
// (hw/gemm_kernel.hpp): each weight matrix as (out features, in features), fused where
// DeepSeek's training kernels fuse them (an expert's gate and up; not MLA's query and KV
// down-projections, two GEMMs on one input in its profile),
// and the three GEMMs a weight costs in training: forward (rows x out x in), input gradient
// (rows x in x out) and weight gradient (out x in x rows, its own kernel).
#include <vector>

#include "hw/gemm_kernel.hpp"
#include "workload/model/model.hpp"

namespace workload {

struct Weight {
  double out = 0, in = 0;
};

// Attention's projections: MLA's q_a, kv_a, q_b, kv_b and o (without a query latent: kv_a, q,
// kv_b and o); GQA's fused qkv and o.
std::vector<Weight> attention_weights(const Model& m);
// How many of them lead the list whole on every TP rank: MLA's down-projections (kv_a, and q_a
// where there is one), which Megatron does not split.
int attention_replicated_weights(const Model& m);
// MLA's up-projections (q_b, kv_b), which the backward recomputes (DeepSeek-V3 report §3.2.3).
std::vector<Weight> attention_up_projections(const Model& m);
// A gated FFN (SwiGLU) of `intermediate`: the fused gate + up, then down.
std::vector<Weight> gated_ffn_weights(const Model& m, double intermediate);

// One GPU's shard of a block's weights under tensor parallelism (Megatron's column then row
// parallel linears): the last weight cut along its input, the others along their output but for
// the first `replicated`, whole on every GPU.
std::vector<Weight> tensor_parallel_shard(std::vector<Weight> weights, int tp, int replicated);

// FLOPs of `rows` tokens through the weights (2 per multiply-add).
double forward_flops(const std::vector<Weight>& weights, double rows);

struct GemmSeconds {
  double forward_s = 0, input_gradient_s = 0, weight_gradient_s = 0;
};

// `rows` tokens through the weights, on `sms` SMs of `gpu` with a GEMM library's constants `c`
// (hw/gemm_library.hpp), one kernel per weight: the forward
// alone (inference, recomputation) or all three passes of training.
double dense_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                             double rows, int sms, hw::GemmPrecision precision = hw::GemmPrecision::kFp8);
GemmSeconds dense_gemm_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                               double rows, int sms, hw::GemmPrecision precision = hw::GemmPrecision::kFp8);
// `groups` experts' weights, `rows_per_group` tokens each: contiguous rows (training, prefill;
// each group padded to the layout's 128) or masked (decode).
double grouped_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                               int groups, double rows_per_group, hw::GemmKind layout, int sms,
                               hw::GemmPrecision precision = hw::GemmPrecision::kFp8);
GemmSeconds grouped_gemm_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                                 int groups, double rows_per_group, int sms,
                                 hw::GemmPrecision precision = hw::GemmPrecision::kFp8);
// `rows` tokens over the experts any of them chose, `groups` of them on average (the expected
// number a few tokens touch, at least one): an expert no token chose is skipped, its weights not
// read. Between whole numbers of experts, the time in proportion, each with its share of the rows.
double touched_grouped_forward_seconds(const hw::Gpu& gpu, const hw::GemmCalibration& c,
                                       const std::vector<Weight>& weights, double groups, double rows,
                                       hw::GemmKind layout, int sms,
                                       hw::GemmPrecision precision = hw::GemmPrecision::kFp8);

}  // namespace workload
