#include "serving/gpu_memory.hpp"

#include <algorithm>
#include <cmath>

#include "workload/model/layer_cost.hpp"

namespace serving {

MemoryPlan plan_memory(const workload::Model& m, const hw::Gpu& gpu, const workload::ServingDeployment& d,
                       const MemoryInput& in) {
  const double bf16 = 2.0;
  const double linear = in.weights == hw::GemmPrecision::kBf16  ? bf16
                        : in.weights == hw::GemmPrecision::kFp8 ? 1.0
                                                                : hw::operand_bytes_per_element(in.weights);
  const double h = m.hidden;
  const int tp = d.attention_tp;
  const auto& a = m.attention;
  const auto dense = workload::layer_parameters(m, false);
  const double layers_with_mtp = m.layers + (in.mtp ? 1 : 0);

  MemoryPlan p;
  p.hbm_bytes = gpu.hbm_bytes;
  // A GPU holds its stage's layers (the largest stage's, where they do not split evenly); the
  // first stage the embedding, the last the LM head.
  const double stages = d.pipeline_stages;
  const double stage_share = std::ceil(m.layers / stages) / m.layers;
  // Attention projections, TP-sharded, in every layer (and the MTP module's).
  double w = dense.attention / tp * linear * layers_with_mtp;
  w += dense.elementwise * bf16 * layers_with_mtp;
  // Dense FFNs, TP-sharded over the attention group.
  const int dense_layers = m.layers - m.moe_layer_count();  // interleaved ones too (Llama 4)
  w += 3.0 * h * m.dense_ffn / tp * linear * dense_layers;
  if (m.moe) {
    const auto& e = *m.moe;
    const double expert = 3.0 * h * e.expert_ffn * linear;
    const double slots = double(e.routed_experts + d.redundant_experts) / d.routed_gpus;
    double moe_layer = slots * expert + h * e.routed_experts * bf16;  // routed experts and the gate
    const double shared = e.shared_experts * expert;
    if (d.dedicated_shared && d.shared_gpus() > 0)
      moe_layer = std::max(moe_layer, shared);
    else
      moe_layer += shared;
    w += moe_layer * (m.moe_layer_count() + (in.mtp ? 1 : 0));
  }
  w *= stage_share;
  // Embedding and LM head, vocabulary-parallel over TP (the MTP module shares both), in BF16;
  // with stages, the first holds the embedding and the last the head (a tied one on both).
  w += (m.tied_embeddings || stages > 1 ? 1.0 : 2.0) * double(m.vocab) * h / tp * bf16;
  if (in.mtp) w += 2.0 * h * h * bf16;  // the MTP module's projection of [embedding; hidden]
  p.weight_bytes = w;

  // The largest live buffers of a step: the residual stream and three hidden-sized buffers
  // around it (normed input, attention output, combined experts), the widest intermediate (the
  // group's query heads, a gated FFN's two halves, or a token's routed copies through its
  // experts' gated halves), and the FP32 logits of the step's tokens.
  const double t = in.max_step_tokens;
  double widest = double(a.heads) / tp * a.qk_head_dim();
  widest = std::max(widest, 2.0 * m.dense_ffn / tp);
  if (m.moe) widest = std::max(widest, double(m.moe->active_routed_experts) * 2.0 * m.moe->expert_ffn);
  p.activation_bytes = t * (4 * h + widest) * bf16 + t * double(m.vocab) / tp * 4;
  p.reserve_bytes = in.reserve_holds_activations ? std::max(0.0, in.runtime_reserve_bytes - p.activation_bytes)
                                                 : in.runtime_reserve_bytes;

  // KV per token: MLA's latent is whole on every GPU of a TP group; GQA's heads are split over
  // the group (copied where TP exceeds the KV heads).
  const auto costs = workload::layer_costs(m);
  double elements = 0;
  for (const auto& c : costs) elements += c.kv_cache_elements_per_token;
  if (in.mtp) elements += costs.back().kv_cache_elements_per_token;
  p.kv_bytes_per_token = elements * in.kv_bytes_per_element;
  p.kv_bytes_per_token_gpu = p.kv_bytes_per_token * workload::kv_share_per_gpu(a, tp);

  p.kv_bytes = p.hbm_bytes - p.weight_bytes - p.activation_bytes - p.reserve_bytes;
  if (in.kv_share_of_free > 0 && p.kv_bytes > 0) {
    p.reserve_bytes += (1 - in.kv_share_of_free) * p.kv_bytes;
    p.kv_bytes *= in.kv_share_of_free;
  }
  p.kv_pages = kv_pages(m, in.mtp, in.kv_bytes_per_element, workload::kv_share_per_gpu(a, tp));
  p.kv_group_tokens =
      p.kv_bytes > 0 ? static_cast<long long>(std::floor(p.kv_bytes / p.kv_pages.group_bytes_per_token_gpu)) : 0;
  p.kv_tokens = p.kv_pages.longest_tokens(p.kv_group_tokens, in.page_tokens);
  return p;
}

}  // namespace serving
