#include "workload/inference/inference.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>

#include "hw/attention_kernel.hpp"
#include "hw/decode_attention.hpp"
#include "hw/flash_attention.hpp"
#include "hw/gemm_kernel.hpp"
#include "hw/memory_kernel.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/layer_gemms.hpp"
#include "workload/model/layer_memory_kernels.hpp"
#include "workload/moe/expert_popularity.hpp"
#include "workload/moe/moe_gate.hpp"

namespace workload {

namespace {

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// A GEMM over `rows` tokens with `weights` FP8 parameters: the larger of its compute and of
// reading its weights once.
double weight_gemm_s(const Roofline& r, double weights, double rows) {
  return std::max(r.linear_s(2 * weights * rows), r.memory_s(weights * r.weight_bytes()));
}

}  // namespace

ServingStep serving_step(const Model& m, const Roofline& r, const ServingDeployment& d, const ServingLinks& links,
                         const ServingRequest& q, const net::Cluster* cluster, AllToAllCache* cache) {
  const Attention& a = m.attention;
  const double h = m.hidden;
  const int tp = d.attention_tp;
  const int mb_sequences = ceil_div(q.sequences, d.micro_batches);
  // The busiest attention group's load in one micro-batch, and the unit's tokens in it.
  GroupLoad g;
  long long mb_tokens = 0;
  if (q.busiest_group) {
    g = *q.busiest_group;
    g.decode_sequences /= d.micro_batches;
    g.prefill_sequences /= d.micro_batches;
    mb_tokens = (q.unit_tokens + d.micro_batches - 1) / d.micro_batches;
  } else {
    const int group_sequences = ceil_div(mb_sequences, d.attention_dp());  // the busiest attention group
    (q.prefill ? g.prefill_sequences : g.decode_sequences) = group_sequences;
    if (q.prefill)
      g.prefill_tokens = q.tokens_per_sequence;
    else
      g.decode_context_tokens = q.context_tokens;
    mb_tokens = static_cast<long long>(mb_sequences) * q.tokens_per_sequence;
  }
  const double decode_tokens = g.decode_sequences * q.tokens_per_sequence;
  const double group_tokens = decode_tokens + g.prefill_sequences * g.prefill_tokens;
  // A step replayed as a CUDA graph (the engine's captured sizes: the busiest DP rank's tokens over
  // all micro-batches): each kernel's launch costs less, its GPU time the same.
  const bool has_prefill = q.prefill || g.prefill_sequences > 0;
  const bool in_cuda_graph =
      (!has_prefill || d.cuda_graph_prefill) && group_tokens * d.micro_batches <= d.cuda_graph_max_batch;
  hw::GemmCalibration gemm_constants = r.gemm_constants();
  if (in_cuda_graph) gemm_constants.launch_s = hw::memory_kernels_for(r.gpu()).in_cuda_graph_s(gemm_constants.launch_s);
  const double gpu_tokens = double(ceil_div(mb_tokens, d.gpus));  // after sequence parallelism
  const auto params = layer_parameters(m, m.moe.has_value());
  const auto costs = layer_costs(m);

  // The memory-bound kernels around the GEMMs (layer_memory_kernels.hpp: norms, casts, RoPE,
  // router, permute, SwiGLU, residual adds): they run between the GEMMs, not beside them.
  const auto pass = q.prefill ? LayerPass::kPrefill : LayerPass::kDecode;
  const LayerMemoryKernels moe_kernels = layer_memory_kernels(m, m.moe.has_value(), r.fp8_gemms(), pass);
  const LayerMemoryKernels dense_kernels = layer_memory_kernels(m, false, r.fp8_gemms(), pass);
  auto memory_kernels_s = [&](const std::vector<MemoryKernel>& list, double tokens, double routed_rows, int shards) {
    double s = 0;
    for (const MemoryKernel& k : list)
      s += memory_kernel_seconds(k, r, tokens, routed_rows, shards, true, in_cuda_graph);
    return s;
  };
  // The MoE's SwiGLU alone, which a profiler's parts count with the experts' GEMMs.
  std::vector<MemoryKernel> moe_swiglu;
  for (const MemoryKernel& k : moe_kernels.mlp_forward)
    if (std::string_view(k.name).starts_with("SwiGLU")) moe_swiglu.push_back(k);

  // Sequence parallelism in a TP group: the group's tokens all-gathered before a tensor-parallel
  // block (attention, a dense FFN) and its output reduce-scattered after, on NVLink.
  const double tp_comm = tp <= 1 ? 0
                         : links.all_reduce
                             ? links.all_reduce->seconds(tp, group_tokens * h * 2)
                             : 2 * ((tp - 1.0) / tp * group_tokens * h * 2 / links.nvlink_Bps + links.nvlink_latency_s);

  // Attention of one micro-batch on one GPU of a TP group: its heads, all the group's tokens
  // (an MoE layer's with the router and the cast of the tokens to dispatch). Per attention window:
  // a sliding-window (or chunked) layer reads and attends over its window only.
  struct AttentionTimes {
    double attention_s = 0, dense_attention_s = 0, kv_fetch_s = 0, attention_late_s = 0;
    double attention_memory_s = 0, dense_attention_memory_s = 0;  // their memory-bound kernels
    double core_s = 0;                                            // the attention kernel alone
  };
  // GEMMs from the kernel model, in the recipe's precision with its library's constants, on GPUs
  // of the family they were fitted on (those with FP8 tensor cores, or the library's own); the
  // roofline elsewhere.
  const bool kernels = r.gemm_kernels();
  const auto precision = r.gemm_precision();
  // Attention's projections on one GPU of a TP group (the down-projections of MLA whole on each,
  // as engines replicate them), one kernel each: those before the attention kernel, and the output
  // projection after it (its own stage in DeepSeek's decode).
  std::vector<Weight> projections_before =
      tensor_parallel_shard(attention_weights(m), tp, attention_replicated_weights(m));
  const std::vector<Weight> output_projection = {projections_before.back()};
  projections_before.pop_back();
  auto attention_times = [&](const LayerCost& cost) {
    AttentionTimes t;
    double decode_flops = 0, prefill_flops = 0, kv_bytes = 0, extra_bf16_flops = 0;
    if (g.prefill_sequences > 0) {
      // Each new token attends to what precedes it and to itself (within the window).
      prefill_flops = g.prefill_sequences * cost.attention_flops_per_token(1.0) *
                      cost.causal_pairs(g.prefill_tokens, g.prefill_context_tokens) / tp;
    }
    if (g.decode_sequences > 0) {
      const double context = g.decode_context_tokens + q.tokens_per_sequence;
      // This GPU's share of the group's KV: its KV heads (GQA), or the whole latent (MLA).
      kv_bytes =
          g.decode_sequences * cost.kv_cache_elements(context) * q.kv_bytes_per_element * kv_share_per_gpu(a, tp);
      if (a.kind == AttentionKind::kMla) {
        // Absorbed MLA: queries meet the compressed latent (and the RoPE key) directly; the
        // up-projections fold into per-head GEMMs over the latent.
        decode_flops =
            decode_tokens * (double(a.heads) / tp) * 2.0 * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim) * context;
        extra_bf16_flops =
            decode_tokens * (double(a.heads) / tp) * 2.0 * a.kv_lora_rank * (a.qk_nope_head_dim + a.v_head_dim);
      } else {
        decode_flops = decode_tokens * cost.attention_flops_per_token(context) / tp;
      }
    }
    const double weights = params.attention / tp;
    // Absorbed MLA in decode is FlashMLA's kernel, timed alone: its KV reads or its tensor
    // cores. Otherwise the attention core shares the roofline with the projections.
    const bool flash_mla = g.decode_sequences > 0 && a.kind == AttentionKind::kMla;
    const double flash_mla_s = flash_mla ? hw::flash_mla_decode_seconds(r.gpu(), kv_bytes, decode_flops) : 0.0;
    // Other decode on the decode kernel the backend runs, where one is measured (FlashInfer's,
    // FlashAttention-2's split-KV, TensorRT-LLM's): its launch, its units (a sequence's KV head)
    // and its KV reads, timed alone; else on the roofline (its FLOPs, or its KV reads beside the
    // projections').
    const bool decode_kernel_timed = g.decode_sequences > 0 && !flash_mla && r.attention().decode.valid();
    const double decode_kernel_s =
        !decode_kernel_timed
            ? 0.0
            : r.slowdown() *
                  hw::backend_decode_time(r.gpu(), r.attention(),
                                          {g.decode_sequences, std::max(1.0, double(a.kv_heads) / tp),
                                           g.decode_context_tokens + q.tokens_per_sequence, kv_bytes},
                                          decode_flops, d.sms - d.comm_sms)
                      .seconds *
                  double(d.sms - d.comm_sms) / d.sms;  // as prefill's: the serving graph slows compute by them
    const bool kv_on_roofline = !flash_mla && !decode_kernel_timed;
    double core_s = g.decode_sequences > 0 && kv_on_roofline ? r.attention_forward_s(decode_flops) : 0.0;
    if (g.prefill_sequences > 0) {
      // Prefill: the GPU's attention backend (FlashAttention-3 on Hopper, FA2 on Ampere and Ada,
      // FA4 on Blackwell) by its kernel model over the group's prompts (a chunk's queries are
      // the last positions of its keys); the roofline where no backend's constants carry.
      if (r.gpu().fp8_dense_flops_per_s > 0 || r.attention().runs_on_gpu(r.gpu().name)) {
        const double s = g.prefill_tokens, before = g.prefill_context_tokens;
        double fa_s = hw::flash_attention_forward_seconds(r.gpu(),
                                                          {g.prefill_sequences, double(a.heads) / tp, s, s + before,
                                                           double(a.qk_head_dim()), double(a.value_head_dim()), true},
                                                          d.sms - d.comm_sms, r.attention().flash) *
                      double(d.sms - d.comm_sms) /
                      d.sms;  // the serving graph slows compute by the SMs communication holds
        // A windowed layer's kernel skips the blocks outside the window: its share of the pairs.
        if (cost.attention_window_tokens > 0) fa_s *= cost.causal_pairs(s, before) / (s * before + s * (s + 1) / 2);
        core_s += fa_s;
      } else {
        core_s += r.attention_forward_s(prefill_flops);
      }
    }
    const double weight_bytes = weights * r.weight_bytes();
    const double projections_compute = r.linear_s(2 * weights * group_tokens) + r.bf16_gemm_s(extra_bf16_flops);
    const double core_alone_s = flash_mla             ? flash_mla_s
                                : decode_kernel_timed ? core_s + decode_kernel_s
                                                      : std::max(core_s, r.memory_s(kv_bytes));
    // With the GEMM kernel model: each projection its own kernel (its weights read inside it),
    // absorbed MLA's per-head BF16 GEMMs on the roofline, then the attention kernel (the larger of
    // its FLOPs and its KV reads). Else the roofline: the weights and the KV cache read once,
    // beside the tensor cores.
    const bool projection_kernels = kernels && group_tokens > 0;
    const double output_s = projection_kernels ? dense_forward_seconds(r.gpu(), gemm_constants, output_projection,
                                                                       std::ceil(group_tokens), d.sms, precision)
                                               : 0.0;
    const double projections_s = projection_kernels ? dense_forward_seconds(r.gpu(), gemm_constants, projections_before,
                                                                            std::ceil(group_tokens), d.sms, precision) +
                                                          output_s
                                                    : 0.0;
    const double base_s = projection_kernels ? projections_s + r.bf16_gemm_s(extra_bf16_flops) + core_alone_s + tp_comm
                                             : std::max(projections_compute + core_s,
                                                        r.memory_s(weight_bytes + (kv_on_roofline ? kv_bytes : 0.0))) +
                                                   flash_mla_s + decode_kernel_s + tp_comm;
    t.attention_memory_s = memory_kernels_s(moe_kernels.attn_forward, group_tokens, 0, tp);
    t.dense_attention_memory_s = memory_kernels_s(dense_kernels.attn_forward, group_tokens, 0, tp);
    t.attention_s = base_s + t.attention_memory_s;
    t.dense_attention_s = base_s + t.dense_attention_memory_s;
    // DeepSeek's decode runs attention in two stages (notes/serving.md): ATTN-1 is the core
    // attention and the output projection, ATTN-0 the rest (norms, RoPE, the down and up
    // projections). The output projection is its own kernel (on the roofline, the projections'
    // time split by their weights); the core is its kernel (or the larger of its FLOPs and its
    // KV reads); the reduce-scatter after attention is ATTN-1's.
    const double output_share = double(a.heads) * a.value_head_dim() * h / params.attention;
    t.core_s = core_alone_s;
    const double late_output_s =
        projection_kernels ? output_s : output_share * std::max(projections_compute, r.memory_s(weight_bytes));
    t.attention_late_s = std::min(base_s, late_output_s + core_alone_s + tp_comm / 2);
    t.kv_fetch_s = q.kv_offload_fraction * kv_bytes / links.pcie_Bps;
    return t;
  };
  std::map<int, AttentionTimes> by_window;  // one per attention window the layers have
  for (const LayerCost& c : costs)
    if (!by_window.count(c.attention_window_tokens)) by_window[c.attention_window_tokens] = attention_times(c);

  ServingStep out;
  auto dense_s = [&](double intermediate, double rows) {
    if (!kernels) return weight_gemm_s(r, 3.0 * h * intermediate, rows);
    return dense_forward_seconds(r.gpu(), gemm_constants, gated_ffn_weights(m, intermediate), std::ceil(rows), d.sms,
                                 precision);
  };
  // A dense layer: its FFN tensor-parallel over the attention group, no all-to-all. A dense
  // model's FFN pays its all-gather and reduce-scatter as attention does; an MoE model's few
  // dense layers do not (DeepSeek runs them at TP1 to save that traffic, V3 report §3.4.1).
  const double dense_ffn_memory_s = memory_kernels_s(dense_kernels.mlp_forward, group_tokens, 0, tp);
  const double dense_ffn_s =
      dense_s(double(m.dense_ffn) / tp, group_tokens) + dense_ffn_memory_s + (m.moe ? 0.0 : tp_comm);
  // The MoE layers' parts after attention: one set per routing profile (per MoE layer with a
  // measured popularity, else one for all).
  // They depend on the micro-batch's tokens, the phase and the CUDA graph alone, so they are kept
  // by those.
  using MoeCosts = AllToAllCache::MoeCosts;
  std::vector<MoeCosts> moe_costs(1);
  const auto expert_layout = q.prefill ? hw::GemmKind::kGroupedContiguous : hw::GemmKind::kGroupedMasked;
  const std::tuple<long long, bool, bool> moe_key{mb_tokens, q.prefill, in_cuda_graph};
  const auto kept_moe = cache ? cache->moe_parts.find(moe_key) : decltype(cache->moe_parts)::iterator{};
  if (m.moe && cache && kept_moe != cache->moe_parts.end()) {
    moe_costs = kept_moe->second.costs;
    out.expert_imbalance = kept_moe->second.expert_imbalance;
    out.experts_touched = kept_moe->second.experts_touched;
    out.ib_bytes_per_gpu = kept_moe->second.ib_bytes_per_gpu;
    out.flow_simulated = kept_moe->second.flow_simulated;
  } else if (m.moe && d.expert_tp) {
    // Every GPU computes its slice of every expert that a token chose, for all of the unit's
    // tokens (gathered to it first, the outputs reduce-scattered after, on NVLink within a node
    // and the NICs beyond). With TP x EP, a GPU holds its EP group's experts only, and the
    // busiest group's experts and tokens set the pace.
    const Moe& moe = *m.moe;
    const int t = d.routed_gpus, ep = d.expert_ep, slice = t / ep;
    const double rows = double(mb_tokens);
    const GateConfig gate{moe.routed_experts, moe.active_routed_experts, moe.groups,
                          std::min(moe.groups_per_token, moe.groups), 2.5};
    std::vector<MoeTraffic> groups;  // TP x EP: the tokens' copies on each EP group, as routed
    if (ep > 1) {
      ServingDeployment by_group = d;
      by_group.gpus = by_group.routed_gpus = ep;
      by_group.gpus_per_node = std::min(d.gpus_per_node, ep);
      by_group.expert_tp = false;
      by_group.redundant_experts = 0;
      by_group.dedicated_shared = false;
      by_group.measured_all_to_all = false;
      groups = moe_traffics(m, by_group, links, mb_tokens, q, nullptr, nullptr);
    }
    moe_costs.assign(static_cast<std::size_t>(moe_profiles(d)), {});
    double touched_sum = 0;
    out.expert_imbalance = 0;
    for (int p = 0; p < moe_profiles(d); ++p) {
      MoeCosts& c = moe_costs[static_cast<std::size_t>(p)];
      double touched = 0, copies = rows * moe.active_routed_experts;
      if (ep > 1) {
        touched = groups[static_cast<std::size_t>(p)].busiest_experts_touched;
        copies = groups[static_cast<std::size_t>(p)].busiest_expert_tokens;
        out.expert_imbalance += groups[static_cast<std::size_t>(p)].imbalance / moe_profiles(d);
      } else {
        std::vector<double> inclusion = expert_shares(moe, d, gate, q, p, cache);
        for (double& x : inclusion) x *= moe.active_routed_experts;
        touched = expected_experts_touched(inclusion, rows);
        out.expert_imbalance += 1.0 / moe_profiles(d);
      }
      touched_sum += touched;
      c.expert_s =
          kernels
              ? touched_grouped_forward_seconds(r.gpu(), gemm_constants,
                                                gated_ffn_weights(m, double(moe.expert_ffn) / slice), touched, copies,
                                                expert_layout, d.sms, precision)
              : (touched > 0 ? touched * weight_gemm_s(r, 3.0 * h * moe.expert_ffn / slice, copies / touched) : 0.0);
      const double shared_ffn = double(moe.expert_ffn) * moe.shared_experts;
      c.shared_s = shared_ffn > 0 ? dense_s(shared_ffn / t, rows) : 0.0;
      c.gate_s = r.bf16_gemm_s(2 * h * moe.routed_experts * rows);
      c.mlp_memory_s = memory_kernels_s(moe_kernels.mlp_forward, rows, rows * moe.active_routed_experts, t);
      c.swiglu_s = memory_kernels_s(moe_swiglu, rows, rows * moe.active_routed_experts, t);
      c.expert_s += c.shared_s + c.gate_s + c.mlp_memory_s;
      const bool crosses_nodes = t > d.gpus_per_node;
      const double link_Bps = crosses_nodes ? links.ib_Bps : links.nvlink_Bps;
      const double latency_s = crosses_nodes ? links.ib_latency_s : links.nvlink_latency_s;
      c.dispatch_s = c.combine_s =
          t > 1 ? (t - 1.0) / t * rows * h * 2 / link_Bps + latency_s : 0.0;  // BF16 tokens, each way
    }
    out.experts_touched = touched_sum / moe_profiles(d);
  } else if (m.moe) {
    const std::vector<MoeTraffic> traffics = moe_traffics(m, d, links, mb_tokens, q, cluster, cache);
    const Moe& moe = *m.moe;
    const double expert = 3.0 * h * moe.expert_ffn;
    moe_costs.assign(traffics.size(), {});
    out.expert_imbalance = out.experts_touched = out.ib_bytes_per_gpu = 0;
    for (std::size_t p = 0; p < traffics.size(); ++p) {
      const MoeTraffic& traffic = traffics[p];
      MoeCosts& c = moe_costs[p];
      out.expert_imbalance += traffic.imbalance / traffics.size();
      out.experts_touched += traffic.busiest_experts_touched / traffics.size();
      out.ib_bytes_per_gpu = std::max(out.ib_bytes_per_gpu, traffic.ib_bytes_per_gpu);
      out.flow_simulated = traffic.simulated;
      // Experts of the busiest routed GPU: the weights of each expert a token chose read once, its
      // token copies computed; the shared expert on dedicated GPUs, or on every GPU for its own
      // tokens. The kernel model: grouped GEMMs over the GPU's chosen experts (masked in decode,
      // contiguous in prefill), a dense GEMM for the shared expert.
      const double touched = traffic.busiest_experts_touched, copies = traffic.busiest_expert_tokens;
      c.expert_s = !kernels
                       ? (touched > 0 ? touched * weight_gemm_s(r, expert, copies / touched) : 0.0)
                       : touched_grouped_forward_seconds(r.gpu(), gemm_constants, gated_ffn_weights(m, moe.expert_ffn),
                                                         touched, copies, expert_layout, d.sms, precision);
      const double shared_ffn = double(moe.expert_ffn) * moe.shared_experts;
      if (d.dedicated_shared && d.shared_gpus() > 0) {
        c.expert_s = std::max(c.expert_s, dense_s(shared_ffn, double(ceil_div(mb_tokens, d.shared_gpus()))));
      } else if (shared_ffn > 0) {
        c.shared_s = dense_s(shared_ffn, gpu_tokens);
        c.expert_s += c.shared_s;
      }
      c.gate_s = r.bf16_gemm_s(2 * h * moe.routed_experts * gpu_tokens);
      c.expert_s += c.gate_s;
      // Permute, SwiGLU and unpermute over the busiest GPU's rows (the shared expert's SwiGLU and
      // the residual over its share of tokens).
      c.mlp_memory_s = memory_kernels_s(moe_kernels.mlp_forward, gpu_tokens, traffic.busiest_expert_tokens, 1);
      c.swiglu_s = memory_kernels_s(moe_swiglu, gpu_tokens, traffic.busiest_expert_tokens, 1);
      c.expert_s += c.mlp_memory_s;
      c.dispatch_s = traffic.dispatch_s;
      c.combine_s = traffic.combine_s;
    }
  }
  if (m.moe && cache && kept_moe == cache->moe_parts.end())
    cache->moe_parts[moe_key] = {moe_costs, out.expert_imbalance, out.experts_touched, out.ib_bytes_per_gpu,
                                 out.flow_simulated};
  auto layer_of = [&](bool moe, const AttentionTimes& t, std::size_t profile) -> MicroBatchCosts {
    if (!moe)
      return {t.kv_fetch_s,
              t.dense_attention_s,
              0,
              dense_ffn_s,
              0,
              t.attention_late_s,
              0,
              0,
              t.dense_attention_memory_s + dense_ffn_memory_s,
              tp_comm + (m.moe ? 0.0 : tp_comm),
              t.core_s,
              dense_ffn_memory_s,
              0};
    const MoeCosts& c = moe_costs[std::min(profile, moe_costs.size() - 1)];
    return {t.kv_fetch_s, t.attention_s, c.dispatch_s,
            c.expert_s,   c.combine_s,   t.attention_late_s,
            c.gate_s,     c.shared_s,    t.attention_memory_s + c.mlp_memory_s,
            tp_comm,      t.core_s,      c.mlp_memory_s,
            c.swiglu_s};
  };
  std::size_t moe_index = 0;
  for (int l = 0; l < m.layers; ++l) {
    const bool moe = m.is_moe_layer(l);
    out.layers.push_back(layer_of(moe, by_window.at(costs[l].attention_window_tokens), moe_index));
    moe_index += moe;
  }
  // The model's last layer stands for it in reports and the MTP module's passes.
  const MicroBatchCosts moe_layer =
      layer_of(m.moe.has_value(), by_window.at(costs.back().attention_window_tokens), moe_costs.size() - 1);
  for (int k = 0; k < q.mtp_drafts; ++k)
    out.layers.push_back(moe_layer);  // the MTP module's passes, costed as the main model's layer
  out.moe_layer = moe_layer;

  // The head: prefill needs logits of each prompt's last token only.
  const double head_rows = g.prefill_sequences + decode_tokens;
  const double head_weights = h * m.vocab / tp;
  out.head_s = std::max(r.bf16_gemm_s(2 * head_weights * head_rows), r.memory_s(2 * head_weights)) * (1 + q.mtp_drafts);
  if (!q.compute) {
    for (auto* l : {&out.moe_layer})
      l->attention_s = l->expert_s = l->attention_late_s = l->gate_s = l->shared_s = l->memory_kernels_s =
          l->tp_comm_s = l->core_attention_s = l->expert_memory_s = l->swiglu_s = 0;
    for (auto& l : out.layers)
      l.attention_s = l.expert_s = l.attention_late_s = l.gate_s = l.shared_s = l.memory_kernels_s = l.tp_comm_s =
          l.core_attention_s = l.expert_memory_s = l.swiglu_s = 0;
    out.head_s = 0;
  }
  out.mtp_layers = q.mtp_drafts;
  out.prefill = q.prefill;
  out.micro_batches = d.micro_batches;
  out.compute_slowdown = double(d.sms) / double(d.sms - d.comm_sms);
  out.overlap = d.overlap;
  // Pipeline stages run one after another for a batch: their compute adds up to the layers'
  // above, and each boundary hands the batch's hidden states and residual (BF16) to the next
  // stage, each TP rank its slice, all-gathered there (vLLM's pipeline sends), per micro-batch.
  // With as many batches in flight as stages, each batch waits for the largest stage: where the
  // layers do not split evenly, its steps take that stage's time per stage.
  if (d.pipeline_stages > 1) {
    const int p = d.pipeline_stages;
    out.stage_balance = double(p) * ((m.layers + p - 1) / p) / m.layers;
    const double bytes = group_tokens * 2 * h * 2 / tp;
    const int crossings = d.pipeline_node_crossings, on_nvlink = d.pipeline_stages - 1 - crossings;
    out.pipeline_s = d.micro_batches * (crossings * (links.ib_latency_s + bytes / links.ib_Bps) +
                                        on_nvlink * (links.nvlink_latency_s + bytes / links.nvlink_Bps));
  }
  if (q.keep_graph) out.graph = serving_graph(out.layers, d.micro_batches, out.compute_slowdown, d.overlap, q.prefill);
  const double layers_s = serving_makespan_s(out.layers, d.micro_batches, out.compute_slowdown, d.overlap, q.prefill);
  out.step_s = layers_s * out.stage_balance + out.head_s + out.pipeline_s;
  return out;
}

ServingStepBreakdown step_breakdown(const ServingStep& step) {
  ServingStepBreakdown b;
  const double mb = step.micro_batches, slow = step.compute_slowdown;
  std::vector<MicroBatchCosts> compute_only = step.layers;
  for (std::size_t l = 0; l < step.layers.size(); ++l) {
    const MicroBatchCosts& c = step.layers[l];
    const bool moe = c.moe();
    b.attention_s += mb * slow * c.attention_s;
    (moe ? b.routed_experts_s : b.dense_ffn_s) += mb * slow * (c.expert_s - c.shared_s - c.gate_s);
    b.shared_expert_s += mb * slow * c.shared_s;
    b.gate_s += mb * slow * c.gate_s;
    b.memory_kernels_s += mb * slow * c.memory_kernels_s;
    b.tp_comm_s += mb * slow * c.tp_comm_s;
    if (l + step.mtp_layers >= step.layers.size()) b.mtp_s += mb * slow * (c.attention_s + c.expert_s);
    b.dispatch_s += mb * c.dispatch_s;
    b.combine_s += mb * c.combine_s;
    compute_only[l].kv_fetch_s = compute_only[l].dispatch_s = compute_only[l].combine_s = 0;
  }
  b.head_s = step.head_s;
  b.step_s = step.step_s;
  const double compute_s = serving_makespan_s(compute_only, step.micro_batches, slow, step.overlap, step.prefill);
  b.exposed_comm_s = std::max(0.0, step.step_s - step.head_s - compute_s);
  b.pipeline_s = step.pipeline_s + compute_s * (step.stage_balance - 1);
  return b;
}

}  // namespace workload
