#include "workload/training/training_memory.hpp"

#include <algorithm>

#include "workload/training/unfused_attention.hpp"

namespace workload {

ActivationBytes layer_activation_bytes(const Model& m, bool moe_layer, const TrainingParallelism& par,
                                       double micro_batch_tokens, double sequence_tokens, bool fp8) {
  const double t = par.tp;
  const double seq = par.sequence_parallel ? t : 1;  // hidden-sized tensors: on sequence shards with SP
  const double tokens = micro_batch_tokens / par.cp;
  const double g = fp8 ? 1 + 4.0 / 128 : 2;  // a GEMM input: FP8 with a 4-byte scale per 128, or BF16
  const bool selective = par.recompute == Recompute::kSelective;
  const Attention& a = m.attention;
  const double h = m.hidden;
  ActivationBytes b;  // per token
  if (par.recompute == Recompute::kFull) {
    b.other = 2 * h / seq;  // the layer's input; the rest is rebuilt before its backward
    b.other *= tokens;
    return b;
  }
  // Attention: the block's input (for the norm's backward), the normed input (recomputed with
  // selective recomputation), the projections' outputs, and attention's output with its
  // log-sum-exp (4 bytes per head).
  b.other += 2 * h / seq;
  if (!selective) b.gemm_inputs += g * h / seq;
  if (a.kind == AttentionKind::kMla) {
    const double latent = a.q_lora_rank + a.kv_lora_rank;
    b.other += 2 * (latent + a.qk_rope_head_dim);  // the down-projections' outputs, before their norms
    if (!selective) {                              // recomputed up-projections (report §3.2.3)
      b.gemm_inputs += g * latent;                 // normed latents, the up-projections' inputs
      b.other += 2.0 * a.heads * (2 * a.qk_head_dim() + a.v_head_dim) / t;  // q, k, v per head
    }
  } else {
    b.other += 2.0 * (a.heads + 2 * a.kv_heads) * a.head_dim / t;
  }
  b.gemm_inputs += g * a.heads * a.value_head_dim() / t;
  b.other += par.unfused_attention
                 ? unfused_attention_activation_bytes_per_token(a.heads / t, sequence_tokens, par.attention_dropout)
                 : 4.0 * a.heads / t;
  // FFN: the block's input, the normed input, gate and up (SwiGLU's backward), SwiGLU's output.
  b.other += 2 * h / seq;
  if (!selective) b.gemm_inputs += g * h / seq;
  auto gated = [&](double intermediate, double rows_per_token, double shards) {
    b.other += rows_per_token * 2 * 2 * intermediate / shards;
    b.gemm_inputs += rows_per_token * g * intermediate / shards;
  };
  if (!moe_layer) {
    gated(m.dense_ffn, 1, t);
  } else {
    const Moe& e = *m.moe;
    // Routed rows this GPU's experts receive per token of its shard (the mean GPU): the
    // dispatched copies (GEMM inputs), their experts' intermediates, and their outputs, which
    // combine's backward weighs.
    const double rows = e.active_routed_experts * double(par.etp) / t;
    b.gemm_inputs += rows * g * h;
    if (fp8) {
      // DeepSeek-V3's recipe (report §3.3.2): SwiGLU's inputs cached in FP8 and its output
      // recomputed; we take the routing weight to scale that recomputed output, so the experts'
      // outputs need not be kept for combine's backward.
      b.gemm_inputs += rows * g * 2 * e.expert_ffn / par.etp;
    } else {
      gated(e.expert_ffn, rows, par.etp);
      b.other += rows * 2 * h;
    }
    b.other += 4.0 * e.routed_experts / seq;  // router probabilities in FP32
    if (e.shared_experts > 0) gated(double(e.expert_ffn) * e.shared_experts, 1, t);
  }
  b.gemm_inputs *= tokens;
  b.other *= tokens;
  return b;
}

TrainingMemory training_memory(const TrainingStep& step, const OptimizerSetup& o, bool fp8, double reserved_B) {
  const Model& m = step.model();
  const TrainingParallelism& par = step.parallelism();
  const StageLayout& layout = step.layout();
  const Schedule& schedule = step.schedule();
  const double tokens = step.batch().micro_batch_tokens();
  const double sequence_tokens = step.batch().sequence_tokens;
  const int n_stages = static_cast<int>(layout.layers.size());
  // One micro-batch of one stage.
  std::vector<ActivationBytes> stage_bytes(static_cast<std::size_t>(n_stages));
  for (int s = 0; s < n_stages; ++s) {
    auto& sb = stage_bytes[static_cast<std::size_t>(s)];
    for (int l = layout.first_layer[s]; l < layout.first_layer[s] + layout.layers[s]; ++l) {
      const auto lb = layer_activation_bytes(m, m.is_moe_layer(l), par, tokens, sequence_tokens, fp8);
      sb.gemm_inputs += lb.gemm_inputs;
      sb.other += lb.other;
    }
    if (s == layout.mtp_stage) {
      const auto lb = layer_activation_bytes(m, m.moe.has_value(), par, tokens, sequence_tokens, fp8);
      sb.gemm_inputs += lb.gemm_inputs;
      sb.other += lb.other + 2 * 2.0 * m.hidden * tokens / par.cp;  // the MTP module's two inputs
    }
  }
  TrainingMemory most;
  for (int r = 0; r < schedule.ranks; ++r) {
    // Walk the rank's chunks: a forward adds its stage's activations, an input backward frees
    // all but the GEMM inputs, which its weight pass frees (a full backward frees both).
    double live = 0, peak = 0;
    int held = 0, peak_held = 0;
    for (const auto& st : schedule.steps[static_cast<std::size_t>(r)])
      for (const auto& c : st.chunks) {
        const auto& sb = stage_bytes[static_cast<std::size_t>(c.position)];
        if (c.pass == Pass::kForward) {
          live += sb.total();
          ++held;
        }
        if (c.pass == Pass::kBackward) live -= sb.total();
        if (c.pass == Pass::kBackwardInput) live -= sb.other;
        if (c.pass == Pass::kWeight) live -= sb.gemm_inputs;
        if (c.pass == Pass::kBackward || c.pass == Pass::kBackwardInput) --held;
        peak = std::max(peak, live);
        peak_held = std::max(peak_held, held);
      }
    TrainingMemory mem;
    const RankParameters p = step.rank_parameters(r);
    const double params = p.dense + p.expert;
    const double dense_dp = par.dense_dp(), expert_dp = par.expert_dp();
    auto by_zero = [&](double bytes_per_parameter, int sharded_from) {
      if (par.zero < sharded_from) return params * bytes_per_parameter;
      return (p.dense / dense_dp + p.expert / expert_dp) * bytes_per_parameter;
    };
    mem.weights_B = by_zero(o.parameter_bytes, 3);
    mem.gradients_B = by_zero(o.gradient_bytes, 2);
    mem.optimizer_B = by_zero(o.master_and_moment_bytes, 1);
    mem.activations_B = peak;
    if (par.recompute == Recompute::kFull) {  // one layer rebuilt whole while its backward runs
      TrainingParallelism kept = par;
      kept.recompute = Recompute::kNone;
      mem.activations_B += layer_activation_bytes(m, m.moe.has_value(), kept, tokens, sequence_tokens, fp8).total();
    }
    // The last stage's logits in FP32 for the loss, one micro-batch at a time.
    for (int s : step.stages_of_rank(r))
      if (s == n_stages - 1) mem.activations_B += 4.0 * tokens / par.cp * m.vocab / par.tp;
    mem.reserved_B = reserved_B;
    mem.peak_micro_batches = peak_held;
    if (mem.total_B() > most.total_B()) most = mem;
  }
  return most;
}

}  // namespace workload
