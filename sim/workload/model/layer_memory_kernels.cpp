#include "workload/model/layer_memory_kernels.hpp"

#include "hw/memory_kernel.hpp"
#include "workload/model/layer_cost.hpp"

namespace workload {

namespace {

constexpr double kBf16 = 2, kFp32 = 4;
const double kFp8 = fp8_token_bytes(1);  // a byte and a share of the FP32 scale per 128 elements

// Quantising n BF16 elements to FP8 (per token, or per channel and transposed): read 2n, write
// the FP8 copy. Requantising a saved FP8 copy per channel and transposed: read it, write it.
double cast(double n) { return (kBf16 + kFp8) * n; }
double recast(double n) { return 2 * kFp8 * n; }
// DeepSeek-V3's recipe caches two activations for the backward in low precision (report §3.3.3,
// SPEC §4): the attention output, input of the linear after attention, in E5M6 (12 bits), and
// the SwiGLU inputs in FP8; the backward reads them back to BF16.
constexpr double kE5m6 = 1.5 + 4.0 / 128;
constexpr double cache_e5m6(double n) { return (kBf16 + kE5m6) * n; }

// One RMSNorm forward reads its input and writes its output; its backward reads the input and
// the output gradient and writes the input gradient. A residual add reads two, writes one.
constexpr double norm_forward(double n) { return 2 * kBf16 * n; }
constexpr double norm_backward(double n) { return 3 * kBf16 * n; }
constexpr double residual_add(double n) { return 3 * kBf16 * n; }

LayerMemoryKernels forward_only(const LayerMemoryKernels& k) {
  LayerMemoryKernels f;
  f.attn_forward = k.attn_forward;
  f.mlp_forward = k.mlp_forward;
  return f;
}

}  // namespace

LayerMemoryKernels layer_memory_kernels(const Model& m, bool moe, bool fp8, LayerPass pass) {
  LayerMemoryKernels k;
  const bool training = pass == LayerPass::kTraining;
  const Attention& a = m.attention;
  const double h = m.hidden;
  const bool mla = a.kind == AttentionKind::kMla;
  const double heads = a.heads;
  auto add = [](std::vector<MemoryKernel>& list, MemoryKernel kernel) {
    if (kernel.hidden_bytes > 0 || kernel.heads_bytes > 0 || kernel.routed_row_bytes > 0)
      list.push_back(std::move(kernel));
  };

  // Attention. The GEMMs' inputs and outputs per token, as attention_weights() shapes them:
  // hidden-sized ones on full vectors, the rest cut over TP.
  double latents = 0, rope_elements = 0, in_heads = 0, out_heads = 0;
  int weights = 2;
  if (mla) {
    const double ql = a.q_lora_rank, kl = a.kv_lora_rank, r = a.qk_rope_head_dim;
    latents = ql + kl;
    rope_elements = (heads + 1) * r;  // every query head's rotary part, and the key's one shared part
    in_heads = latents + heads * a.v_head_dim;
    out_heads = ql + kl + r + heads * a.qk_head_dim() + heads * (a.qk_nope_head_dim + a.v_head_dim);
    weights = ql > 0 ? 5 : 4;
  } else {
    rope_elements = (heads + a.kv_heads) * a.head_dim;
    in_heads = heads * a.head_dim;
    out_heads = (heads + 2.0 * a.kv_heads) * a.head_dim;
  }
  const int latent_norms = mla ? (a.q_lora_rank > 0 ? 2 : 1) : 0;
  const double rope_bytes = 2 * kBf16 * rope_elements;  // read and write the rotary parts in place
  // MLA's keys: each head's own part from kv_b beside the one rotary part all heads share,
  // assembled into one tensor for the attention kernel; the backward splits the gradient back.
  const double key_assembly =
      mla ? kBf16 * (heads * a.qk_nope_head_dim + a.qk_rope_head_dim) + kBf16 * heads * a.qk_head_dim() : 0;

  add(k.attn_forward, {"RMSNorm (attention input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});
  if (fp8) add(k.attn_forward, {"FP8 cast of the attention input", hw::MemoryKernelKind::kCast, cast(h)});
  if (mla)
    add(k.attn_forward,
        {"RMSNorm of the MLA latents", hw::MemoryKernelKind::kRowReduction, 0, norm_forward(latents), 0, latent_norms});
  if (mla && fp8)
    add(k.attn_forward,
        {"FP8 cast of the MLA latents", hw::MemoryKernelKind::kCast, 0, cast(latents), 0, latent_norms});
  add(k.attn_forward, {"RoPE on queries and keys", hw::MemoryKernelKind::kElementwise, 0, rope_bytes, 0, 2});
  if (mla && pass != LayerPass::kDecode)
    add(k.attn_forward, {"MLA keys assembled per head", hw::MemoryKernelKind::kElementwise, 0, key_assembly});
  if (fp8)
    add(k.attn_forward,
        {"FP8 cast of the attention output", hw::MemoryKernelKind::kCast, 0, cast(heads * a.value_head_dim())});
  if (fp8 && training)
    add(k.attn_forward,
        {"attention output cached in E5M6", hw::MemoryKernelKind::kCast, 0, cache_e5m6(heads * a.value_head_dim())});
  add(k.attn_forward, {"residual add", hw::MemoryKernelKind::kElementwise, residual_add(h)});

  add(k.attn_backward, {"residual add (gradients)", hw::MemoryKernelKind::kElementwise, residual_add(h)});
  if (fp8) {
    add(k.attn_backward,
        {"FP8 casts of the output gradients", hw::MemoryKernelKind::kCast, cast(h), cast(out_heads), 0, weights});
    // Output gradients per channel, and the inputs saved in FP8 requantised per channel.
    add(k.attn_backward, {"FP8 transposed casts for the weight gradients", hw::MemoryKernelKind::kCastTranspose,
                          cast(h) + recast(h), cast(out_heads) + recast(in_heads), 0, 2 * weights});
  }
  if (fp8)
    add(k.attn_backward, {"cached attention output back to BF16", hw::MemoryKernelKind::kCast, 0,
                          cache_e5m6(heads * a.value_head_dim())});
  if (mla)
    add(k.attn_backward, {"MLA key gradients split per head", hw::MemoryKernelKind::kElementwise, 0, key_assembly});
  add(k.attn_backward, {"RoPE backward", hw::MemoryKernelKind::kElementwise, 0, rope_bytes, 0, 2});
  if (mla)
    add(k.attn_backward, {"RMSNorm backward of the MLA latents", hw::MemoryKernelKind::kRowReduction, 0,
                          norm_backward(latents), 0, latent_norms});
  add(k.attn_backward, {"RMSNorm backward (attention input)", hw::MemoryKernelKind::kRowReduction, norm_backward(h)});
  add(k.attn_recompute, {"RMSNorm recomputed (attention input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});
  if (mla)
    add(k.attn_recompute, {"RMSNorm of the MLA latents recomputed", hw::MemoryKernelKind::kRowReduction, 0,
                           norm_forward(latents), 0, latent_norms});
  // Recomputing MLA's up-projections (report §3.2.3) rebuilds what the attention kernel's
  // backward reads from their outputs: their FP8 inputs, the rotary parts, the keys per head
  // (DeepSeek's profile runs these in attn(B), before FlashAttention's backward).
  if (mla && fp8)
    add(k.attn_recompute,
        {"FP8 cast of the MLA latents recomputed", hw::MemoryKernelKind::kCast, 0, cast(latents), 0, latent_norms});
  if (mla)
    add(k.attn_recompute,
        {"RoPE on queries and keys recomputed", hw::MemoryKernelKind::kElementwise, 0, rope_bytes, 0, 2});
  if (mla)
    add(k.attn_recompute,
        {"MLA keys assembled per head, recomputed", hw::MemoryKernelKind::kElementwise, 0, key_assembly});

  if (!moe) {
    const double f = m.dense_ffn;
    add(k.mlp_forward, {"RMSNorm (FFN input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});
    if (fp8) add(k.mlp_forward, {"FP8 cast of the FFN input", hw::MemoryKernelKind::kCast, cast(h)});
    // SwiGLU reads gate and up, writes their product (fused with its FP8 cast in an FP8 recipe).
    add(k.mlp_forward, {fp8 ? "SwiGLU fused with its FP8 cast" : "SwiGLU",
                        fp8 ? hw::MemoryKernelKind::kCast : hw::MemoryKernelKind::kElementwise, 0,
                        2 * kBf16 * f + (fp8 ? kFp8 : kBf16) * f});
    add(k.mlp_forward, {"residual add", hw::MemoryKernelKind::kElementwise, residual_add(h)});
    add(k.mlp_backward, {"residual add (gradients)", hw::MemoryKernelKind::kElementwise, residual_add(h)});
    if (fp8) {
      add(k.mlp_backward,
          {"FP8 casts of the output gradients", hw::MemoryKernelKind::kCast, cast(h), cast(2 * f), 0, 2});
      add(k.mlp_backward, {"FP8 transposed casts for the weight gradients", hw::MemoryKernelKind::kCastTranspose,
                           cast(h) + recast(h), cast(2 * f) + recast(f), 0, 4});
    }
    // Reads gate, up and the product's gradient, writes the gate's and up's gradients.
    add(k.mlp_backward, {"SwiGLU backward", hw::MemoryKernelKind::kElementwise, 0, 5 * kBf16 * f});
    add(k.mlp_backward, {"RMSNorm backward (FFN input)", hw::MemoryKernelKind::kRowReduction, norm_backward(h)});
    add(k.mlp_recompute, {"RMSNorm recomputed (FFN input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});
    return training ? k : forward_only(k);
  }

  // A MoE layer: the router and the tokens' cast run before the dispatch, so in attn(F) as
  // DeepSeek's profile annotates it. The router on FP32 scores per expert: sigmoid, bias,
  // per-group sums of the top two, top groups, mask, top-k, gather, normalise, scale.
  const Moe& e = *m.moe;
  const double f = e.expert_ffn, experts = e.routed_experts, shared = e.shared_experts;
  constexpr int kRouterKernels = 9;
  const double router_bytes = 3 * kFp32 * experts;
  add(k.attn_forward, {"RMSNorm (MoE input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});
  add(k.attn_forward, {"router: scores, group-limited top-k, weights", hw::MemoryKernelKind::kRowReduction,
                       router_bytes, 0, 0, kRouterKernels});
  // Decode's low-latency dispatch casts inside its kernel, and receives into (and combines from)
  // each expert's rows of the masked layout: no cast, permute or unpermute of their own.
  const bool decode = pass == LayerPass::kDecode;
  if (fp8 && !decode) add(k.attn_forward, {"FP8 cast of the tokens to dispatch", hw::MemoryKernelKind::kCast, cast(h)});
  add(k.attn_backward, {"router backward", hw::MemoryKernelKind::kRowReduction, router_bytes, 0, 0, kRouterKernels});
  add(k.attn_backward, {"RMSNorm backward (MoE input)", hw::MemoryKernelKind::kRowReduction, norm_backward(h)});
  // Its rerun, for the experts' and the router's gradients, runs in mlp(B) (as DeepSeek's profile has it).
  add(k.mlp_recompute, {"RMSNorm recomputed (MoE input)", hw::MemoryKernelKind::kRowReduction, norm_forward(h)});

  // The experts: each received FP8 row permuted into its expert's order, SwiGLU (the routing
  // weight applied) per expert row and shared-expert token, the outputs put back in send order.
  const double swiglu = 2 * kBf16 * f + (fp8 ? kFp8 : kBf16) * f;
  if (!decode)
    add(k.mlp_forward, {"permute the received tokens into expert order", hw::MemoryKernelKind::kPermute, 0, 0,
                        2 * (fp8 ? kFp8 : kBf16) * h});
  add(k.mlp_forward,
      {fp8 ? "SwiGLU with routing weights, fused with its FP8 cast" : "SwiGLU with routing weights",
       fp8 ? hw::MemoryKernelKind::kCast : hw::MemoryKernelKind::kElementwise, 0, shared * swiglu, swiglu});
  if (fp8 && training)
    add(k.mlp_forward,
        {"SwiGLU inputs cached in FP8", hw::MemoryKernelKind::kCast, 0, shared * cast(2 * f), cast(2 * f)});
  if (!decode)
    add(k.mlp_forward,
        {"unpermute the expert outputs into send order", hw::MemoryKernelKind::kPermute, 0, 0, 2 * kBf16 * h});
  add(k.mlp_forward, {"residual add", hw::MemoryKernelKind::kElementwise, residual_add(h)});

  // The layer's output gradient goes to the experts as the tokens did, in the dispatch's
  // precision: an FP8 recipe casts it per token before combine(B) sends it (report §3.3.3, "the
  // activation gradient before MoE down-projections"; DeepSeek's profile runs the cast on the
  // communication stream, under combine(B)), and the experts receive FP8 rows.
  if (fp8) add(k.combine_backward, {"FP8 cast of the output gradients to send", hw::MemoryKernelKind::kCast, cast(h)});
  add(k.mlp_backward, {"residual add (gradients)", hw::MemoryKernelKind::kElementwise, residual_add(h)});
  add(k.mlp_backward, {"permute the output gradients into expert order", hw::MemoryKernelKind::kPermute, 0, 0,
                       2 * (fp8 ? kFp8 : kBf16) * h});
  if (fp8) {
    add(k.mlp_backward, {"FP8 casts of the output gradients", hw::MemoryKernelKind::kCast, 0,
                         shared * (cast(h) + cast(2 * f)), cast(2 * f), 3});
    // The gate and up projections' output gradients and the SwiGLU output here; the shared
    // experts' operands too. The routed experts' inputs and down-projection gradients, both
    // received in FP8, are requantised per channel in the weight-gradient op, beside the GEMMs
    // that take them.
    add(k.mlp_backward, {"FP8 transposed casts for the weight gradients", hw::MemoryKernelKind::kCastTranspose, 0,
                         shared * (cast(h) + recast(h) + cast(2 * f) + recast(f)), cast(2 * f) + recast(f), 6});
    add(k.mlp_weight, {"FP8 transposed casts of the experts' inputs and output gradients",
                       hw::MemoryKernelKind::kCastTranspose, 0, 0, 2 * recast(h), 2});
  }
  if (fp8)
    add(k.mlp_backward,
        {"cached SwiGLU inputs back to BF16", hw::MemoryKernelKind::kCast, 0, shared * cast(2 * f), cast(2 * f)});
  add(k.mlp_backward, {"SwiGLU backward with the routing weights' gradient", hw::MemoryKernelKind::kElementwise, 0,
                       shared * 5 * kBf16 * f, 5 * kBf16 * f});
  add(k.mlp_backward,
      {"unpermute the input gradients into token order", hw::MemoryKernelKind::kPermute, 0, 0, 2 * kBf16 * h});
  return training ? k : forward_only(k);
}

double memory_kernel_seconds(const MemoryKernel& k, const Roofline& r, double tokens, double routed_rows, int tp,
                             bool sequence_parallel, bool in_cuda_graph) {
  // The GPU generation's own fit (floor and fractions of its HBM), measured on its parts.
  const hw::MemoryKernelModel& model = hw::memory_kernels_for(r.gpu());
  const double streaming_s =
      model.seconds(k.kind, k.bytes(tokens, routed_rows, tp, sequence_parallel), r.gpu().hbm_bandwidth_Bps, 0);
  const double floor_s = in_cuda_graph ? model.in_cuda_graph_s(model.rate(k.kind).floor_s) : model.rate(k.kind).floor_s;
  return k.launches * floor_s + r.slowdown() * streaming_s;
}

}  // namespace workload
