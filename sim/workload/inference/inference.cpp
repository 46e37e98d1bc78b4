#include "workload/inference/inference.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "hw/attention_kernel.hpp"
#include "hw/flash_attention.hpp"
#include "hw/gemm_kernel.hpp"
#include "hw/low_latency_alltoall.hpp"
#include "net/platform.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/layer_gemms.hpp"
#include "workload/model/layer_memory_kernels.hpp"
#include "workload/moe/ep_comm.hpp"
#include "workload/moe/expert_placement.hpp"
#include "workload/moe/moe_dispatch.hpp"
#include "workload/moe/moe_gate.hpp"

namespace workload {

namespace {

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// The EP all-to-all of one micro-batch: routed by the gate onto the placed experts (replicas of
// the heaviest with redundant experts), sent directly or DeepEP's way.
MoeTraffic moe_traffic(const Model& m, const ServingDeployment& d, const ServingLinks& links, long long tokens,
                       const ServingRequest& q, const net::Cluster* cluster, AllToAllCache* cache) {
  if (cache)
    if (const auto kept = cache->by_tokens.find(tokens); kept != cache->by_tokens.end()) return kept->second;
  const std::uint64_t seed = q.seed;
  const int max_routed = q.max_routed_tokens;
  const Moe& moe = *m.moe;
  const int routed = static_cast<int>(std::min<long long>(tokens, max_routed));
  const double scale = double(tokens) / routed;
  const GateConfig gate{moe.routed_experts, moe.active_routed_experts, moe.groups, std::min(moe.groups_per_token, moe.groups), 2.5};
  const std::vector<float> no_bias(static_cast<std::size_t>(moe.routed_experts), 0.0f);
  // Tokens are routed one by one and the first tokens' affinities do not depend on how many are
  // drawn, so fewer tokens' routing is the start of more tokens' routing: kept, and drawn again
  // (for at least twice as many) only when more are asked.
  auto route = [&](int n) {
    return route_synthetic_tokens(n, q.affinity.skew, q.affinity.strength, seed, gate, no_bias);
  };
  Routing routing;
  if (cache) {
    if (cache->routing.tokens < routed) cache->routing = route(std::min(max_routed, std::max(routed, 2 * cache->routing.tokens)));
    routing.tokens = routed;
    routing.top_k = cache->routing.top_k;
    const auto n = static_cast<std::ptrdiff_t>(routed) * routing.top_k;
    routing.experts.assign(cache->routing.experts.begin(), cache->routing.experts.begin() + n);
  } else {
    routing = route(routed);
  }
  // The placement answers the load seen over time (EPLB's estimate), not this batch: it is made
  // from another sample of the same gate. Each routed expert id becomes the slot of its replica.
  if (d.redundant_experts > 0) {
    std::optional<ReplicatedPlacement> made;
    std::optional<ReplicatedPlacement>& placement = cache ? cache->placement : made;
    if (!placement) {
      const int sample = 8192;
      const auto history = route_synthetic_tokens(sample, q.affinity.skew, q.affinity.strength, seed + 0x9E37, gate, no_bias);
      std::vector<double> estimate(static_cast<std::size_t>(moe.routed_experts), 0.0);
      for (int e : history.experts) estimate[static_cast<std::size_t>(e)] += 1;
      // EPLB's own choice: hierarchical when the nodes divide the expert groups, else global.
      placement = eplb_hierarchical(moe.groups, d.routed_gpus, d.gpus_per_node)
                      ? balance_experts_hierarchical(estimate, d.redundant_experts, d.routed_gpus, moe.groups, d.routed_gpus / d.gpus_per_node)
                      : balance_experts(estimate, d.redundant_experts, d.routed_gpus);
    }
    for (int t = 0; t < routed; ++t)
      for (int k = 0; k < routing.top_k; ++k) {
        int& e = routing.experts[static_cast<std::size_t>(t) * routing.top_k + k];
        e = placement->slot_for(e, t);
      }
  }
  const int slots = moe.routed_experts + d.redundant_experts;
  const int per_gpu = slots / d.routed_gpus;

  MoeTraffic out;
  std::vector<double> load(static_cast<std::size_t>(d.routed_gpus), 0.0);
  for (int e : routing.experts) load[static_cast<std::size_t>(e / per_gpu)] += 1;
  const double mean = double(routing.experts.size()) / d.routed_gpus;
  out.busiest_expert_tokens = *std::max_element(load.begin(), load.end()) * scale;
  out.imbalance = out.busiest_expert_tokens / scale / mean;

  // DeepEP's low-latency (direct) kernels add 16 bytes of metadata to each selection
  // (notes/kernels.md).
  const double dispatch_bytes = fp8_token_bytes(m.hidden) + (d.direct_comm ? 16 : 0);
  const double combine_bytes = 2.0 * m.hidden;  // BF16
  DispatchTraffic dispatch, combine;
  if (d.direct_comm) {
    std::vector<std::vector<int>> destinations(static_cast<std::size_t>(routed));
    for (int t = 0; t < routed; ++t) {
      for (int k = 0; k < routing.top_k; ++k) destinations[t].push_back(routing.expert(t, k) / per_gpu);
      if (d.dedicated_shared && d.shared_gpus() > 0) destinations[t].push_back(d.routed_gpus + t % d.shared_gpus());
    }
    dispatch = direct_traffic(destinations, d.gpus, d.gpus_per_node, dispatch_bytes);
    combine = direct_traffic(destinations, d.gpus, d.gpus_per_node, combine_bytes);
  } else {
    const ExpertPlacement placement{d.gpus, d.gpus_per_node, slots};
    dispatch = dispatch_traffic(routing, placement, dispatch_bytes);
    combine = dispatch_traffic(routing, placement, combine_bytes);
  }
  const std::vector<GpuTraffic> dispatched = per_gpu_traffic(dispatch);
  double busiest = 0;
  for (const GpuTraffic& g : dispatched) busiest = std::max(busiest, g.ib_sent);
  out.ib_bytes_per_gpu = busiest * scale;
  out.simulated = cluster != nullptr;
  if (out.simulated && d.direct_comm && d.measured_all_to_all) {
    // The low-latency kernels on the simulated network: each link at the share of its rate the
    // kernels reach (their fitted model), the kernel's fixed time on top of the flows' makespan.
    const auto& ll = hw::deepep_low_latency();
    net::Cluster kernels = *cluster;
    kernels.scale_out_Bps *= ll.nic.rate_fraction;
    kernels.scale_up_Bps *= ll.nvlink.rate_fraction;
    kernels.scale_out_latency_s = kernels.scale_up_latency_s = 0;
    const double fixed_s = d.gpus > d.gpus_per_node ? ll.nic.latency_s : ll.nvlink.latency_s;
    out.dispatch_s = core::simulate(net::StarPlatform(kernels), dispatch_graph(dispatch, scale, false)).makespan_s() + fixed_s;
    out.combine_s = core::simulate(net::StarPlatform(kernels), dispatch_graph(combine, scale, true)).makespan_s() + fixed_s;
  } else if (out.simulated) {
    out.dispatch_s = core::simulate(net::StarPlatform(*cluster), dispatch_graph(dispatch, scale, false)).makespan_s();
    out.combine_s = core::simulate(net::StarPlatform(*cluster), dispatch_graph(combine, scale, true)).makespan_s();
  } else if (d.direct_comm && d.measured_all_to_all) {
    // DeepEP's low-latency kernels as measured: the busiest GPU's messages, sent or received,
    // through its NIC and over NVLink, each path at its fitted latency and share of the link.
    const auto& ll = hw::deepep_low_latency();
    auto seconds = [&](const std::vector<GpuTraffic>& per_gpu) {
      double worst = 0;
      for (const GpuTraffic& g : per_gpu)
        worst = std::max({worst, ll.seconds(g.ib_sent * scale, g.nvlink_sent * scale, links.ib_Bps, links.nvlink_Bps),
                          ll.seconds(g.ib_received * scale, g.nvlink_received * scale, links.ib_Bps, links.nvlink_Bps)});
      return worst;
    };
    out.dispatch_s = seconds(dispatched);
    out.combine_s = seconds(per_gpu_traffic(combine));
  } else {
    const bool crosses_nodes = d.gpus > d.gpus_per_node;
    const double latency = crosses_nodes ? links.ib_latency_s : links.nvlink_latency_s;
    out.dispatch_s = dispatch_bound_s(dispatch, scale, links.ib_Bps, links.nvlink_Bps) + latency;
    out.combine_s = dispatch_bound_s(combine, scale, links.ib_Bps, links.nvlink_Bps) + latency;
  }
  if (cache) cache->by_tokens[tokens] = out;
  return out;
}

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
    if (q.prefill) g.prefill_tokens = q.tokens_per_sequence;
    else g.decode_context_tokens = q.context_tokens;
    mb_tokens = static_cast<long long>(mb_sequences) * q.tokens_per_sequence;
  }
  const double decode_tokens = g.decode_sequences * q.tokens_per_sequence;
  const double group_tokens = decode_tokens + g.prefill_sequences * g.prefill_tokens;
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
    for (const MemoryKernel& k : list) s += memory_kernel_seconds(k, r, tokens, routed_rows, shards, true);
    return s;
  };

  // Sequence parallelism in a TP group: the group's tokens all-gathered before a tensor-parallel
  // block (attention, a dense FFN) and its output reduce-scattered after, on NVLink.
  const double tp_comm = tp > 1 ? 2 * ((tp - 1.0) / tp * group_tokens * h * 2 / links.nvlink_Bps + links.nvlink_latency_s) : 0;

  // Attention of one micro-batch on one GPU of a TP group: its heads, all the group's tokens
  // (an MoE layer's with the router and the cast of the tokens to dispatch). Per attention window:
  // a sliding-window (or chunked) layer reads and attends over its window only.
  struct AttentionTimes {
    double attention_s = 0, dense_attention_s = 0, kv_fetch_s = 0, attention_late_s = 0;
    double attention_memory_s = 0, dense_attention_memory_s = 0;  // their memory-bound kernels
  };
  auto attention_times = [&](const LayerCost& cost) {
    AttentionTimes t;
    double decode_flops = 0, prefill_flops = 0, kv_bytes = 0, extra_bf16_flops = 0;
    if (g.prefill_sequences > 0) {
      // Each new token attends to what precedes it and to itself (within the window).
      prefill_flops = g.prefill_sequences * cost.attention_flops_per_token(1.0) * cost.causal_pairs(g.prefill_tokens, g.prefill_context_tokens) / tp;
    }
    if (g.decode_sequences > 0) {
      const double context = g.decode_context_tokens + q.tokens_per_sequence;
      // This GPU's share of the group's KV: its KV heads (GQA), or the whole latent (MLA).
      kv_bytes = g.decode_sequences * cost.kv_cache_elements(context) * q.kv_bytes_per_element * kv_share_per_gpu(a, tp);
      if (a.kind == AttentionKind::kMla) {
        // Absorbed MLA: queries meet the compressed latent (and the RoPE key) directly; the
        // up-projections fold into per-head GEMMs over the latent.
        decode_flops = decode_tokens * (double(a.heads) / tp) * 2.0 * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim) * context;
        extra_bf16_flops = decode_tokens * (double(a.heads) / tp) * 2.0 * a.kv_lora_rank * (a.qk_nope_head_dim + a.v_head_dim);
      } else {
        decode_flops = decode_tokens * cost.attention_flops_per_token(context) / tp;
      }
    }
    const double weights = params.attention / tp;
    // Absorbed MLA in decode is FlashMLA's kernel, timed alone: its KV reads or its tensor
    // cores. Otherwise the attention core shares the roofline with the projections.
    const bool flash_mla = g.decode_sequences > 0 && a.kind == AttentionKind::kMla;
    const double flash_mla_s = flash_mla ? hw::flash_mla_decode_seconds(r.gpu(), kv_bytes, decode_flops) : 0.0;
    double core_s = g.decode_sequences > 0 && !flash_mla ? r.attention_forward_s(decode_flops) : 0.0;
    if (g.prefill_sequences > 0) {
      // Prefill on Hopper-class GPUs: FlashAttention-3's kernel model over the group's prompts
      // (a chunk's queries are the last positions of its keys).
      if (r.gpu().fp8_dense_flops_per_s > 0) {
        const double s = g.prefill_tokens, before = g.prefill_context_tokens;
        double fa_s = hw::flash_attention_forward_seconds(r.gpu(),
                                                          {g.prefill_sequences, double(a.heads) / tp, s, s + before, double(a.qk_head_dim()),
                                                           double(a.value_head_dim()), true},
                                                          d.sms - d.comm_sms) *
                      double(d.sms - d.comm_sms) / d.sms;  // the serving graph slows compute by the SMs communication holds
        // A windowed layer's kernel skips the blocks outside the window: its share of the pairs.
        if (cost.attention_window_tokens > 0) fa_s *= cost.causal_pairs(s, before) / (s * before + s * (s + 1) / 2);
        core_s += fa_s;
      } else {
        core_s += r.attention_forward_s(prefill_flops);
      }
    }
    const double weight_bytes = weights * r.weight_bytes();
    const double projections_compute = r.linear_s(2 * weights * group_tokens) + r.bf16_gemm_s(extra_bf16_flops);
    const double compute = projections_compute + core_s;
    // The weights and the KV cache read once, beside the tensor cores.
    const double memory = r.memory_s(weight_bytes + (flash_mla ? 0.0 : kv_bytes));
    const double base_s = std::max(compute, memory) + flash_mla_s + tp_comm;
    t.attention_memory_s = memory_kernels_s(moe_kernels.attn_forward, group_tokens, 0, tp);
    t.dense_attention_memory_s = memory_kernels_s(dense_kernels.attn_forward, group_tokens, 0, tp);
    t.attention_s = base_s + t.attention_memory_s;
    t.dense_attention_s = base_s + t.dense_attention_memory_s;
    // DeepSeek's decode runs attention in two stages (notes/serving.md): ATTN-1 is the core
    // attention and the output projection, ATTN-0 the rest (norms, RoPE, the down and up
    // projections). The projections' time splits by their weights; the core is its kernel (or
    // the larger of its FLOPs and its KV reads); the reduce-scatter after attention is ATTN-1's.
    const double output_share = double(a.heads) * a.value_head_dim() * h / params.attention;
    const double core_alone_s = flash_mla ? flash_mla_s : std::max(core_s, r.memory_s(kv_bytes));
    t.attention_late_s = std::min(base_s, output_share * std::max(projections_compute, r.memory_s(weight_bytes)) + core_alone_s + tp_comm / 2);
    t.kv_fetch_s = q.kv_offload_fraction * kv_bytes / links.pcie_Bps;
    return t;
  };
  std::map<int, AttentionTimes> by_window;  // one per attention window the layers have
  for (const LayerCost& c : costs)
    if (!by_window.count(c.attention_window_tokens)) by_window[c.attention_window_tokens] = attention_times(c);

  ServingStep out;
  // FFN GEMMs from the kernel model, in the recipe's precision with its library's constants, on
  // GPUs of the family they were fitted on (those with FP8 tensor cores); the roofline elsewhere.
  const bool kernels = r.gpu().fp8_dense_flops_per_s > 0;
  const auto precision = r.gemm_precision();
  auto dense_s = [&](double intermediate, double rows) {
    if (!kernels) return weight_gemm_s(r, 3.0 * h * intermediate, rows);
    return dense_forward_seconds(r.gpu(), r.gemm_constants(), gated_ffn_weights(m, intermediate), std::ceil(rows), d.sms, precision);
  };
  // A dense layer: its FFN tensor-parallel over the attention group, no all-to-all. A dense
  // model's FFN pays its all-gather and reduce-scatter as attention does; an MoE model's few
  // dense layers do not (DeepSeek runs them at TP1 to save that traffic, V3 report §3.4.1).
  const double dense_ffn_memory_s = memory_kernels_s(dense_kernels.mlp_forward, group_tokens, 0, tp);
  const double dense_ffn_s = dense_s(double(m.dense_ffn) / tp, group_tokens) + dense_ffn_memory_s + (m.moe ? 0.0 : tp_comm);
  // The MoE layer's parts after attention.
  double dispatch_s = 0, expert_s = 0, combine_s = 0, gate_s = 0, shared_s = 0, mlp_memory_s = 0;
  if (m.moe && d.expert_tp) {
    // Every GPU computes every expert's slice for all of the unit's tokens (gathered to it first,
    // the outputs reduce-scattered after, on NVLink within a node and the NICs beyond).
    const Moe& moe = *m.moe;
    const int t = d.routed_gpus;
    const double rows = double(mb_tokens);
    const double rows_per_expert = rows * moe.active_routed_experts / moe.routed_experts;
    expert_s = kernels ? grouped_forward_seconds(r.gpu(), r.gemm_constants(), gated_ffn_weights(m, double(moe.expert_ffn) / t), moe.routed_experts,
                                                 rows_per_expert, q.prefill ? hw::GemmKind::kGroupedContiguous : hw::GemmKind::kGroupedMasked, d.sms,
                                                 precision)
                       : moe.routed_experts * weight_gemm_s(r, 3.0 * h * moe.expert_ffn / t, rows_per_expert);
    const double shared_ffn = double(moe.expert_ffn) * moe.shared_experts;
    shared_s = shared_ffn > 0 ? dense_s(shared_ffn / t, rows) : 0.0;
    gate_s = r.bf16_gemm_s(2 * h * moe.routed_experts * rows);
    mlp_memory_s = memory_kernels_s(moe_kernels.mlp_forward, rows, rows * moe.active_routed_experts, t);
    expert_s += shared_s + gate_s + mlp_memory_s;
    const bool crosses_nodes = t > d.gpus_per_node;
    const double link_Bps = crosses_nodes ? links.ib_Bps : links.nvlink_Bps;
    const double latency_s = crosses_nodes ? links.ib_latency_s : links.nvlink_latency_s;
    dispatch_s = combine_s = t > 1 ? (t - 1.0) / t * rows * h * 2 / link_Bps + latency_s : 0.0;  // BF16 tokens, each way
  } else if (m.moe) {
    const auto traffic = moe_traffic(m, d, links, mb_tokens, q, cluster, cache);
    out.expert_imbalance = traffic.imbalance;
    out.ib_bytes_per_gpu = traffic.ib_bytes_per_gpu;
    out.flow_simulated = traffic.simulated;
    const Moe& moe = *m.moe;
    const double expert = 3.0 * h * moe.expert_ffn;
    const int per_gpu = (moe.routed_experts + d.redundant_experts) / d.routed_gpus;
    // Experts of the busiest routed GPU: each of its experts' weights read once, its token copies
    // computed; the shared expert on dedicated GPUs, or on every GPU for its own tokens. The
    // kernel model: grouped GEMMs over the GPU's experts (masked in decode, contiguous in
    // prefill), a dense GEMM for the shared expert.
    auto routed_s = [&](double rows_per_expert) {
      if (!kernels) return per_gpu * weight_gemm_s(r, expert, rows_per_expert);
      const auto layout = q.prefill ? hw::GemmKind::kGroupedContiguous : hw::GemmKind::kGroupedMasked;
      return grouped_forward_seconds(r.gpu(), r.gemm_constants(), gated_ffn_weights(m, moe.expert_ffn), per_gpu, rows_per_expert, layout, d.sms,
                                     precision);
    };
    expert_s = routed_s(traffic.busiest_expert_tokens / per_gpu);
    const double shared_ffn = double(moe.expert_ffn) * moe.shared_experts;
    if (d.dedicated_shared && d.shared_gpus() > 0) {
      expert_s = std::max(expert_s, dense_s(shared_ffn, double(ceil_div(mb_tokens, d.shared_gpus()))));
    } else if (shared_ffn > 0) {
      shared_s = dense_s(shared_ffn, gpu_tokens);
      expert_s += shared_s;
    }
    gate_s = r.bf16_gemm_s(2 * h * moe.routed_experts * gpu_tokens);
    expert_s += gate_s;
    // Permute, SwiGLU and unpermute over the busiest GPU's rows (the shared expert's SwiGLU and the
    // residual over its share of tokens).
    mlp_memory_s = memory_kernels_s(moe_kernels.mlp_forward, gpu_tokens, traffic.busiest_expert_tokens, 1);
    expert_s += mlp_memory_s;
    dispatch_s = traffic.dispatch_s;
    combine_s = traffic.combine_s;
  }
  auto layer_of = [&](bool moe, const AttentionTimes& t) -> MicroBatchCosts {
    if (!moe)
      return {t.kv_fetch_s, t.dense_attention_s, 0, dense_ffn_s, 0, t.attention_late_s, 0, 0, t.dense_attention_memory_s + dense_ffn_memory_s,
              tp_comm + (m.moe ? 0.0 : tp_comm)};
    return {t.kv_fetch_s, t.attention_s, dispatch_s, expert_s, combine_s, t.attention_late_s, gate_s, shared_s, t.attention_memory_s + mlp_memory_s, tp_comm};
  };
  for (int l = 0; l < m.layers; ++l) out.layers.push_back(layer_of(m.is_moe_layer(l), by_window.at(costs[l].attention_window_tokens)));
  // The model's last layer stands for it in reports and the MTP module's passes.
  const MicroBatchCosts moe_layer = layer_of(m.moe.has_value(), by_window.at(costs.back().attention_window_tokens));
  for (int k = 0; k < q.mtp_drafts; ++k) out.layers.push_back(moe_layer);  // the MTP module's passes, costed as the main model's layer
  out.moe_layer = moe_layer;

  // The head: prefill needs logits of each prompt's last token only.
  const double head_rows = g.prefill_sequences + decode_tokens;
  const double head_weights = h * m.vocab / tp;
  out.head_s = std::max(r.bf16_gemm_s(2 * head_weights * head_rows), r.memory_s(2 * head_weights)) * (1 + q.mtp_drafts);
  if (!q.compute) {
    for (auto* l : {&out.moe_layer}) l->attention_s = l->expert_s = l->attention_late_s = l->gate_s = l->shared_s = l->memory_kernels_s = l->tp_comm_s = 0;
    for (auto& l : out.layers) l.attention_s = l.expert_s = l.attention_late_s = l.gate_s = l.shared_s = l.memory_kernels_s = l.tp_comm_s = 0;
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
    out.pipeline_s = d.micro_batches * (crossings * (links.ib_latency_s + bytes / links.ib_Bps) + on_nvlink * (links.nvlink_latency_s + bytes / links.nvlink_Bps));
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
    const bool moe = c.dispatch_s > 0 || c.combine_s > 0 || c.gate_s > 0;
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
