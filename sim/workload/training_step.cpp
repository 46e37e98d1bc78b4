#include "workload/training_step.hpp"

#include <algorithm>
#include <cctype>

#include "core/analytic_engine.hpp"
#include "workload/layer_cost.hpp"
#include "workload/layer_gemms.hpp"
#include "workload/schedule_generators.hpp"

namespace workload {

namespace {

// Bytes that element-wise kernels move per token in a layer's forward pass, counted from the
// shapes (BF16 activations, FP8 GEMM inputs). The backward moves about twice as much.
//   RMSNorm: read and write h (4h); a residual add: read two, write one (6h); quantising a GEMM
//   input to FP8: read 2, write 1 byte per element; SwiGLU: read gate and up, write the product
//   (6 bytes per intermediate element) and quantise it (3 more).
double attention_side_bytes(const Model& m) {
  const Attention& a = m.attention;
  const double h = m.hidden;
  const double out_in = double(a.heads) * a.value_head_dim();
  double bytes = 4 * h + 6 * h + 3 * (h + out_in);
  if (a.kind == AttentionKind::kMla) {
    bytes += 3 * (a.q_lora_rank + a.kv_lora_rank) + 4 * (a.q_lora_rank + a.kv_lora_rank);  // latent quantise + norms
    bytes += 4.0 * (a.heads + 1) * a.qk_rope_head_dim;                                   // RoPE on q and k
  }
  return bytes;
}

double ffn_side_bytes(const Model& m, bool moe) {
  const double h = m.hidden;
  double bytes = 4 * h + 6 * h + 3 * h;
  if (!moe) return bytes + 9.0 * m.dense_ffn;
  const Moe& e = *m.moe;
  const int active = e.active_routed_experts + e.shared_experts;
  bytes += 9.0 * e.expert_ffn * active;
  // Permute the dispatched FP8 copies into expert order, and combine: read k BF16 outputs,
  // write their weighted sum.
  bytes += e.active_routed_experts * (2 * h + 2 * h) + 2 * h;
  return bytes;
}

}  // namespace

double StageChunks::forward_s() const {
  double t = extra_forward_s;
  for (const auto& l : layers) t += l.forward.attention_s + l.forward.dispatch_s + l.forward.mlp_s + l.forward.combine_s;
  return t;
}

double StageChunks::input_backward_s() const {
  double t = extra_input_s;
  for (const auto& l : layers)
    t += l.backward.combine_s + l.backward.mlp_input_s + l.backward.dispatch_s + l.backward.attention_input_s;
  return t;
}

double StageChunks::weight_s() const {
  double t = extra_weight_s;
  for (const auto& l : layers) t += l.backward.mlp_weight_s + l.backward.attention_weight_s;
  return t;
}

TrainingStep::TrainingStep(const Model& model, const Roofline& roofline, TrainingParallelism parallelism,
                           TrainingBatch batch, StageLayout layout, EpCommTimes ep_comm, int sms, int comm_sms,
                           std::optional<OpCalibration> calibration)
    : model_(&model),
      roofline_(roofline),
      par_(std::move(parallelism)),
      batch_(batch),
      layout_(std::move(layout)),
      ep_(ep_comm),
      sms_(sms),
      comm_sms_(comm_sms),
      calibration_(std::move(calibration)) {
  const int n_stages = static_cast<int>(layout_.layers.size());
  const double tokens = batch_.micro_batch_tokens();
  const double h = model.hidden, vocab = model.vocab;
  const Roofline& r = roofline_;
  // The head and the loss: a BF16 GEMM (the recipe keeps the output head in BF16), the final
  // norm, and a softmax over the vocabulary (BF16 logits written, read and their gradient written).
  const double head_forward = r.bf16_gemm_s(2 * h * vocab * tokens) + r.memory_s((4 * h + 6 * vocab) * tokens);
  const double head_input = r.bf16_gemm_s(2 * h * vocab * tokens) + r.memory_s((8 * h + 6 * vocab) * tokens);
  const double head_weight = r.bf16_gemm_s(2 * h * vocab * tokens);
  const auto costs = layer_costs(model);
  for (int s = 0; s < n_stages; ++s) {
    StageChunks st;
    for (int l = layout_.first_layer[s]; l < layout_.first_layer[s] + layout_.layers[s]; ++l)
      st.layers.push_back(calibrated_chunks(costs[static_cast<std::size_t>(l)]));
    if (s == 0) {  // embedding lookup, and its gradient scattered back
      st.extra_forward_s += r.memory_s(4 * h * tokens);
      st.extra_weight_s += r.memory_s(8 * h * tokens);
    }
    if (s == n_stages - 1) {
      st.extra_forward_s += head_forward;
      st.extra_input_s += head_input;
      st.extra_weight_s += head_weight;
      if (layout_.mtp) {
        // The MTP module: norms of its two inputs, the 2h x h projection, one layer, the shared head.
        const double projection = 2 * 2 * h * h * tokens;
        st.extra_forward_s += r.memory_s(8 * h * tokens) + r.linear_s(projection) + head_forward;
        st.extra_input_s += r.memory_s(16 * h * tokens) + r.linear_s(projection) + head_input;
        st.extra_weight_s += r.linear_s(projection) + head_weight;
        st.layers.push_back(calibrated_chunks(costs.back()));  // the MTP module's layer is an MoE layer
      }
    }
    stages_.push_back(std::move(st));
  }
  const int micro_batches = batch_.micro_batches(par_.dp());
  schedule_ = schedule_for({par_.schedule, par_.pp, micro_batches, 1});
}

const std::vector<std::string>& OpCalibration::op_names() {
  static const std::vector<std::string> names = {"attn(F)", "mlp(F)", "attn(B)", "attn(W)", "mlp(B)", "mlp(W)"};
  return names;
}

LayerChunks TrainingStep::calibrated_chunks(const LayerCost& cost) const {
  LayerChunks c = layer_chunks(cost, batch_.micro_batch_tokens(), comm_sms_);
  if (!calibration_) return c;
  const OpCalibration& cal = *calibration_;
  // The model's op at the profiled shape, beside the profiled communication.
  const LayerChunks at = layer_chunks(cost, cal.micro_batch_tokens, cal.communication_sms);
  auto scale = [&](double& op, double model_at_profile, const char* name) {
    if (model_at_profile > 0) op *= cal.op_s.at(name) / model_at_profile;
  };
  scale(c.forward.attention_s, at.forward.attention_s, "attn(F)");
  scale(c.backward.attention_input_s, at.backward.attention_input_s, "attn(B)");
  scale(c.backward.attention_weight_s, at.backward.attention_weight_s, "attn(W)");
  if (cost.moe) {
    scale(c.forward.mlp_s, at.forward.mlp_s, "mlp(F)");
    scale(c.backward.mlp_input_s, at.backward.mlp_input_s, "mlp(B)");
    scale(c.backward.mlp_weight_s, at.backward.mlp_weight_s, "mlp(W)");
  }
  return c;
}

LayerChunks TrainingStep::layer_chunks(const LayerCost& cost, double tokens, int comm_sms) const {
  const Model& m = *model_;
  // Every compute op as DeepSeek's framework runs it while communication kernels hold
  // `comm_sms` SMs: GEMMs launched on the SMs left (the profile's GEMM grids are 112 blocks),
  // other kernels sharing the GPU with communication, so slower by sms / (sms - comm_sms). The
  // same in overlapped pairs and alone.
  const int gemm_sms = sms_ - comm_sms;
  const double beside = double(sms_) / double(gemm_sms);
  const Roofline r = roofline_.slowed_by(beside);
  const Attention& a = m.attention;
  const bool moe = cost.moe;
  const auto& params = cost.params;
  const double core = cost.attention_flops_per_token(mean_context_tokens(batch_.sequence_tokens, AttentionMask::kCausal));
  const double attn_linear = 2 * params.attention * tokens;
  const double attn_bytes = attention_side_bytes(m) * tokens;
  // Recomputed in the backward (report §3.2.3): every RMSNorm and MLA's up-projections.
  double up_projection = 0;
  if (a.kind == AttentionKind::kMla)
    up_projection = 2.0 * tokens *
                    (double(a.q_lora_rank) * a.heads * a.qk_head_dim() +
                     double(a.kv_lora_rank) * a.heads * (a.qk_nope_head_dim + a.v_head_dim));
  const double norm_bytes = (8.0 * m.hidden + 4.0 * (a.q_lora_rank + a.kv_lora_rank)) * tokens;

  // FP8 GEMMs from the kernel model, shape by shape; BF16 recipes from the roofline.
  const bool kernels = r.fp8_gemms();
  const hw::Gpu& gpu = r.gpu();
  const GemmSeconds attn = kernels ? dense_gemm_seconds(gpu, attention_weights(m), tokens, gemm_sms)
                                   : GemmSeconds{r.linear_s(attn_linear), r.linear_s(attn_linear), r.linear_s(attn_linear)};
  const double recompute_s =
      kernels ? dense_forward_seconds(gpu, attention_up_projections(m), tokens, gemm_sms) : r.linear_s(up_projection);

  LayerChunks c;
  c.forward.attention_s = attn.forward_s + r.attention_forward_s(core * tokens) + r.memory_s(attn_bytes);
  // FlashAttention's backward runs five GEMMs to the forward's two.
  c.backward.attention_input_s = attn.input_gradient_s + r.attention_backward_s(2.5 * core * tokens) +
                                 r.memory_s(2 * attn_bytes + norm_bytes) + recompute_s;
  c.backward.attention_weight_s = attn.weight_gradient_s;

  const double ffn_bytes = ffn_side_bytes(m, moe) * tokens;
  if (!moe) {
    const double ffn = 2 * params.ffn_active * tokens;
    const GemmSeconds g = kernels ? dense_gemm_seconds(gpu, gated_ffn_weights(m, m.dense_ffn), tokens, gemm_sms)
                                  : GemmSeconds{r.linear_s(ffn), r.linear_s(ffn), r.linear_s(ffn)};
    c.forward.mlp_s = g.forward_s + r.memory_s(ffn_bytes);
    c.backward.mlp_input_s = g.input_gradient_s + r.memory_s(2 * ffn_bytes);
    c.backward.mlp_weight_s = g.weight_gradient_s;
    return c;
  }
  const Moe& e = *m.moe;
  const double expert_flops = 2.0 * 3 * m.hidden * e.expert_ffn * tokens;
  // The all-to-all waits for the GPU with the most routed tokens; shared experts are local.
  const double experts = expert_flops * (e.active_routed_experts * ep_.expert_imbalance + e.shared_experts);
  const double gate = 2.0 * m.hidden * e.routed_experts * tokens;  // BF16, as the recipe keeps the gate
  GemmSeconds g{r.linear_s(experts), r.linear_s(experts), r.linear_s(experts)};
  if (kernels) {
    // The busiest GPU's experts: each GPU of the EP group sends its micro-batch's tokens to
    // top-k experts, so an expert gets tokens x top-k x EP / experts rows, the busiest more.
    const int local_experts = e.routed_experts / par_.ep;
    const double rows = tokens * e.active_routed_experts * par_.ep / e.routed_experts * ep_.expert_imbalance;
    const auto routed = grouped_gemm_seconds(gpu, gated_ffn_weights(m, e.expert_ffn), local_experts, rows, gemm_sms);
    const auto shared = dense_gemm_seconds(gpu, gated_ffn_weights(m, double(e.expert_ffn) * e.shared_experts), tokens, gemm_sms);
    g = {routed.forward_s + shared.forward_s, routed.input_gradient_s + shared.input_gradient_s,
         routed.weight_gradient_s + shared.weight_gradient_s};
  }
  c.forward.mlp_s = g.forward_s + r.bf16_gemm_s(gate) + r.memory_s(ffn_bytes);
  c.backward.mlp_input_s = g.input_gradient_s + r.bf16_gemm_s(gate) + r.memory_s(2 * ffn_bytes);
  c.backward.mlp_weight_s = g.weight_gradient_s + r.bf16_gemm_s(gate);
  c.forward.dispatch_s = ep_.dispatch_forward_s;
  c.forward.combine_s = ep_.combine_forward_s;
  c.backward.combine_s = ep_.combine_backward_s;
  c.backward.dispatch_s = ep_.dispatch_backward_s;
  return c;
}

double TrainingStep::step_seconds(const Step& step) const {
  if (step.chunks.size() == 2) {
    // An overlapped pair lasts until its last op ends; the same stages pair up many times.
    const Chunk& f = step.chunks[0].pass == Pass::kForward ? step.chunks[0] : step.chunks[1];
    const Chunk& b = step.chunks[0].pass == Pass::kForward ? step.chunks[1] : step.chunks[0];
    const auto key = std::make_tuple(f.position, b.position, b.pass == Pass::kBackward);
    if (auto it = pair_cache_.find(key); it != pair_cache_.end()) return it->second;
    double end = 0;
    for (const auto& op : step_ops(step)) end = std::max(end, op.end_s);
    return pair_cache_[key] = end;
  }
  const Chunk& c = step.chunks[0];
  const StageChunks& st = stages_[static_cast<std::size_t>(c.position)];
  switch (c.pass) {
    case Pass::kForward: return st.forward_s();
    case Pass::kBackward: return st.input_backward_s() + st.weight_s();
    case Pass::kBackwardInput: return st.input_backward_s();
    case Pass::kWeight: return st.weight_s();
  }
  return 0;
}

namespace {

// "ATTN (F)" -> "attn(F)": chunk_overlap.hpp's task names as DeepSeek's profile writes them.
std::string profile_name(const std::string& task) {
  std::string out;
  bool inside = false;
  for (char ch : task) {
    if (ch == ' ') continue;
    inside = inside || ch == '(';
    out += inside ? ch : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

std::string op_stream(const std::string& name, const std::string& stream) {
  return name.find("(W)") != std::string::npos ? "weight-gradient" : stream;
}

}  // namespace

std::vector<OpSpan> TrainingStep::step_ops(const Step& step) const {
  std::vector<OpSpan> ops;
  double t = 0;
  auto add = [&](const std::string& name, const std::string& stream, int layer, double seconds) {
    if (seconds <= 0) return;
    ops.push_back({name, op_stream(name, stream), layer, t, t + seconds});
    t += seconds;
  };
  auto layer_of = [&](int stage, std::size_t i) {
    return layout_.first_layer[static_cast<std::size_t>(stage)] + static_cast<int>(i);  // the MTP layer follows the last
  };
  auto forward = [&](const ForwardChunk& x, int layer) {
    add("attn(F)", "compute", layer, x.attention_s);
    add("dispatch(F)", "communication", layer, x.dispatch_s);
    add("mlp(F)", "compute", layer, x.mlp_s);
    add("combine(F)", "communication", layer, x.combine_s);
  };
  auto backward = [&](const BackwardChunk& x, int layer, bool input, bool weight) {
    if (input) add("combine(B)", "communication", layer, x.combine_s);
    if (input) add("mlp(B)", "compute", layer, x.mlp_input_s);
    if (weight) add("mlp(W)", "compute", layer, x.mlp_weight_s);
    if (input) add("dispatch(B)", "communication", layer, x.dispatch_s);
    if (input) add("attn(B)", "compute", layer, x.attention_input_s);
    if (weight) add("attn(W)", "compute", layer, x.attention_weight_s);
  };
  if (step.chunks.size() == 2) {
    const Chunk& fc = step.chunks[0].pass == Pass::kForward ? step.chunks[0] : step.chunks[1];
    const Chunk& bc = step.chunks[0].pass == Pass::kForward ? step.chunks[1] : step.chunks[0];
    const bool with_weight = bc.pass == Pass::kBackward;
    const StageChunks& f = stages_[static_cast<std::size_t>(fc.position)];
    const StageChunks& b = stages_[static_cast<std::size_t>(bc.position)];
    add("other", "compute", -1, f.extra_forward_s + b.extra_input_s + (with_weight ? b.extra_weight_s : 0.0));
    // Layer by layer: the forward runs its layers first to last, the backward last to first; the
    // i-th of each overlap as in Figure 4 (already timed beside communication: no slowdown
    // there). A chunk with more layers runs its rest alone.
    const std::size_t n = std::max(f.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < n; ++i) {
      const bool has_f = i < f.layers.size(), has_b = i < b.layers.size();
      const std::size_t bi = has_b ? b.layers.size() - 1 - i : 0;
      if (has_f && has_b) {
        BackwardChunk back = b.layers[bi].backward;
        if (!with_weight) back.attention_weight_s = back.mlp_weight_s = 0;
        const auto graph = overlapped_chunk_pair({f.layers[i].forward, back, sms_, 0});
        const auto tl = core::evaluate_analytically(graph);
        for (std::size_t k = 0; k < graph.tasks().size(); ++k) {
          const auto& task = graph.tasks()[k];
          const auto span = tl.span(static_cast<core::TaskId>(k));
          if (span.end_s <= span.start_s) continue;
          const std::string name = profile_name(task.name);
          const bool is_forward = name.find("(F)") != std::string::npos;
          ops.push_back({name, op_stream(name, task.stream), is_forward ? layer_of(fc.position, i) : layer_of(bc.position, bi),
                         t + span.start_s, t + span.end_s});
        }
        t += tl.makespan_s();
      } else if (has_f) {
        forward(f.layers[i].forward, layer_of(fc.position, i));
      } else {
        backward(b.layers[bi].backward, layer_of(bc.position, bi), true, with_weight);
      }
    }
    return ops;
  }
  const Chunk& c = step.chunks[0];
  const StageChunks& st = stages_[static_cast<std::size_t>(c.position)];
  const bool input = c.pass != Pass::kWeight, weight = c.pass == Pass::kBackward || c.pass == Pass::kWeight;
  if (c.pass == Pass::kForward) {
    add("other", "compute", -1, st.extra_forward_s);
    for (std::size_t i = 0; i < st.layers.size(); ++i) forward(st.layers[i].forward, layer_of(c.position, i));
    return ops;
  }
  add("other", "compute", -1, (input ? st.extra_input_s : 0.0) + (weight ? st.extra_weight_s : 0.0));
  for (std::size_t i = st.layers.size(); i-- > 0;) backward(st.layers[i].backward, layer_of(c.position, i), input, weight);
  return ops;
}

double TrainingStep::pp_transfer_bytes() const { return 2.0 * model_->hidden * batch_.micro_batch_tokens(); }

PipelineGraph TrainingStep::pipeline_graph() const {
  return workload::pipeline_graph(schedule_, [this](const Step& s) { return step_seconds(s); }, pp_transfer_bytes());
}

StepBreakdown TrainingStep::breakdown(const PipelineGraph& graph, const core::Timeline& timeline) const {
  const auto m = pipeline_metrics(schedule_, graph, timeline);
  StepBreakdown b;
  b.rank = m.critical_rank;
  b.bubble_s = m.bubble_s;
  const auto& steps = schedule_.steps[static_cast<std::size_t>(b.rank)];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& span = timeline.span(graph.step_tasks[static_cast<std::size_t>(b.rank)][i]);
    const double d = span.end_s - span.start_s;
    if (steps[i].chunks.size() == 2) b.overlapped_s += d;
    else if (steps[i].chunks[0].pass == Pass::kForward) b.forward_s += d;
    else if (steps[i].chunks[0].pass == Pass::kWeight) b.weight_s += d;
    else b.backward_s += d;
  }
  return b;
}

RankParameters TrainingStep::rank_parameters() const {
  const Model& m = *model_;
  const int n_stages = static_cast<int>(layout_.layers.size());
  auto stage_parameters = [&](int s) {
    RankParameters p;
    for (int l = layout_.first_layer[s]; l < layout_.first_layer[s] + layout_.layers[s]; ++l) {
      const bool moe = m.is_moe_layer(l);
      const auto lp = layer_parameters(m, moe);
      double routed = 0;
      if (moe) routed = 3.0 * m.hidden * m.moe->expert_ffn * m.moe->routed_experts;
      p.dense += lp.total() - routed;
      p.expert += routed / par_.ep;
    }
    if (s == 0) p.dense += double(m.vocab) * m.hidden;
    if (s == n_stages - 1) {
      p.dense += double(m.vocab) * m.hidden + m.hidden;
      if (layout_.mtp) {
        const auto lp = layer_parameters(m, m.moe.has_value());
        const double routed = m.moe ? 3.0 * m.hidden * m.moe->expert_ffn * m.moe->routed_experts : 0.0;
        p.dense += lp.total() - routed + 2.0 * m.hidden * m.hidden + 2.0 * m.hidden;
        p.expert += routed / par_.ep;
      }
    }
    return p;
  };
  RankParameters most;
  for (int r = 0; r < schedule_.ranks; ++r) {
    RankParameters p;
    // The stages whose chunks run on rank r.
    std::vector<int> held;
    for (const auto& path : schedule_.paths)
      for (std::size_t pos = 0; pos < path.size(); ++pos)
        if (path[pos] == r && std::find(held.begin(), held.end(), int(pos)) == held.end()) held.push_back(int(pos));
    for (int s : held) {
      const auto sp = stage_parameters(s);
      p.dense += sp.dense;
      p.expert += sp.expert;
    }
    if (p.dense + p.expert > most.dense + most.expert) most = p;
  }
  return most;
}

}  // namespace workload
