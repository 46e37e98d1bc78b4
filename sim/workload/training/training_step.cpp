#include "workload/training/training_step.hpp"

#include <algorithm>
#include <cctype>

#include "core/analytic_engine.hpp"
#include "hw/flash_attention.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/layer_gemms.hpp"
#include "workload/model/layer_memory_kernels.hpp"
#include "workload/pipeline/schedule_registry.hpp"
#include "workload/training/unfused_attention.hpp"

namespace workload {

namespace {

// One kernel per weight and pass, named by its shape (M x N x K), as dense_gemm_seconds and
// grouped_gemm_seconds time them; `groups` > 0: the experts' grouped GEMMs.
struct GemmKernels {
  std::vector<KernelTime> forward, input_gradient, weight_gradient;

  GemmSeconds seconds() const {  // summed in order, as dense_gemm_seconds sums them
    auto sum = [](const std::vector<KernelTime>& ks) {
      double s = 0;
      for (const auto& k : ks) s += k.seconds;
      return s;
    };
    return {sum(forward), sum(input_gradient), sum(weight_gradient)};
  }
};

std::string gemm_shape(double m, double n, double k) {
  auto whole = [](double v) { return std::to_string(static_cast<long long>(std::llround(v))); };
  return whole(m) + "x" + whole(n) + "x" + whole(k);
}

// `named`: with their names (for a trace), else their times alone.
GemmKernels gemm_kernels(const hw::Gpu& gpu, const hw::GemmCalibration& c, const std::vector<Weight>& weights,
                         double rows, int groups, int sms, hw::GemmPrecision precision, bool named) {
  GemmKernels k;
  const std::string type = precision == hw::GemmPrecision::kFp4   ? "FP4"
                           : precision == hw::GemmPrecision::kFp8 ? "FP8"
                                                                  : "BF16";
  const std::string grouped =
      groups > 0 ? "grouped " + type + " GEMM " + std::to_string(groups) + " x " : type + " GEMM ";
  for (const Weight& w : weights) {
    const GemmSeconds g = groups > 0 ? grouped_gemm_seconds(gpu, c, {w}, groups, rows, sms, precision)
                                     : dense_gemm_seconds(gpu, c, {w}, rows, sms, precision);
    auto name = [&](const std::string& prefix, double m, double n, double kk) {
      return named ? prefix + gemm_shape(m, n, kk) : "";
    };
    k.forward.push_back({name(grouped, rows, w.out, w.in), g.forward_s, KernelClass::kGemm});
    k.input_gradient.push_back({name(grouped, rows, w.in, w.out), g.input_gradient_s, KernelClass::kGemm});
    k.weight_gradient.push_back(
        {name("weight-gradient " + grouped, w.out, w.in, rows), g.weight_gradient_s, KernelClass::kGemm});
  }
  return k;
}

// A ring all-gather or reduce-scatter of `bytes` per GPU (the whole, before the cut) over `n` GPUs.
double ring_s(double bytes, int n, double link_Bps) {
  if (n < 2 || link_Bps <= 0) return 0;
  return (n - 1.0) / n * bytes / link_Bps;
}

}  // namespace

GroupLinks group_links(const TrainingParallelism& par, double nvlink_Bps, double nic_Bps,
                       const hw::AllReduceFit* node_all_reduce) {
  const RankGrid grid = par.attention_grid(), experts = par.expert_grid();
  auto within_node = [&](const std::string& dim) { return par.members_per_node(dim) == grid.size(dim); };
  auto link = [&](const std::string& dim) { return within_node(dim) ? nvlink_Bps : nic_Bps; };
  const double etp_Bps = par.expert_members_per_node("tp") == experts.size("tp") ? nvlink_Bps : nic_Bps;
  return {link("tp"), link("cp"), etp_Bps, par.tp > 1 && within_node("tp") ? node_all_reduce : nullptr};
}

double StageChunks::forward_s() const {
  double t = extra_forward_s;
  for (const auto& l : layers)
    t += l.forward.attention_s + l.forward.dispatch_s + l.forward.mlp_s + l.forward.combine_s;
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
                           std::optional<OpCalibration> calibration, GroupLinks links, bool keep_kernels)
    : model_(&model),
      roofline_(roofline),
      par_(std::move(parallelism)),
      batch_(batch),
      layout_(std::move(layout)),
      ep_(ep_comm),
      sms_(sms),
      comm_sms_(comm_sms),
      calibration_(std::move(calibration)),
      links_(links),
      keep_kernels_(keep_kernels) {
  const int n_stages = static_cast<int>(layout_.layers.size());
  // One GPU's share of the work outside layers: its CP shard of the tokens, and its TP shard of
  // the vocabulary (Megatron's vocabulary-parallel embedding, head and loss).
  const double tokens = batch_.micro_batch_tokens() / par_.cp;
  const double h = model.hidden, vocab = double(model.vocab) / par_.tp;
  const double seq_shard = par_.sequence_parallel ? par_.tp : 1;
  const Roofline& r = roofline_;
  // The head and the loss: a BF16 GEMM (the recipe keeps the output head in BF16), the final
  // norm, and a softmax over the vocabulary (BF16 logits written, read and their gradient written).
  const double head_forward =
      r.bf16_gemm_s(2 * h * vocab * tokens) + r.memory_s((4 * h / seq_shard + 6 * vocab) * tokens);
  const double head_input =
      r.bf16_gemm_s(2 * h * vocab * tokens) + r.memory_s((8 * h / seq_shard + 6 * vocab) * tokens);
  const double head_weight = r.bf16_gemm_s(2 * h * vocab * tokens);
  const auto costs = layer_costs(model);
  for (int s = 0; s < n_stages; ++s) {
    StageChunks st;
    for (int l = layout_.first_layer[s]; l < layout_.first_layer[s] + layout_.layers[s]; ++l)
      st.layers.push_back(calibrated_chunks(costs[static_cast<std::size_t>(l)]));
    if (s == 0) {  // embedding lookup, and its gradient scattered back
      st.extra_forward_s += r.memory_s(4 * h * tokens / seq_shard);
      st.extra_weight_s += r.memory_s(8 * h * tokens / seq_shard);
    }
    if (s == n_stages - 1) {
      st.extra_forward_s += head_forward;
      st.extra_input_s += head_input;
      st.extra_weight_s += head_weight;
    }
    if (s == layout_.mtp_stage) {
      // The MTP module: norms of its two inputs, the 2h x h projection, one layer, the shared head.
      const double projection = 2 * 2 * h * h * tokens / par_.tp;
      st.extra_forward_s += r.memory_s(8 * h * tokens / seq_shard) + r.linear_s(projection) + head_forward;
      st.extra_input_s += r.memory_s(16 * h * tokens / seq_shard) + r.linear_s(projection) + head_input;
      st.extra_weight_s += r.linear_s(projection) + head_weight;
      st.layers.push_back(calibrated_chunks(costs.back()));  // the MTP module's layer is an MoE layer
    }
    stages_.push_back(std::move(st));
  }
  const int micro_batches = batch_.micro_batches(par_.dp);
  schedule_ = schedule_for({par_.schedule, par_.pp, micro_batches, par_.vpp});
}

const std::vector<std::string>& OpCalibration::op_names() {
  static const std::vector<std::string> names = {"attn(F)", "mlp(F)", "attn(B)", "attn(W)", "mlp(B)", "mlp(W)"};
  return names;
}

const std::vector<std::string>& OpCalibration::communication_op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (EpOp op : ep_ops()) all.push_back(ep_op_name(op));
    return all;
  }();
  return names;
}

LayerChunks TrainingStep::calibrated_chunks(const LayerCost& cost) const {
  LayerChunks c = layer_chunks(cost, batch_.micro_batch_tokens(), comm_sms_);
  if (!calibration_) return c;
  const OpCalibration& cal = *calibration_;
  // The model's op at the profiled shape, beside the profiled communication, in the profiled
  // layer: an MoE layer where the model has them (whose attention ops hold the router), so a
  // dense layer takes the measured attention scaled by the model's dense-to-MoE ratio.
  LayerCost profiled = cost;
  profiled.moe = model_->moe.has_value();
  const LayerChunks at = layer_chunks(profiled, cal.micro_batch_tokens, cal.communication_sms);
  auto scale = [&](double& op, double model_at_profile, const char* name) {
    if (!(model_at_profile > 0)) return;
    const double factor = cal.op_s.at(name) / model_at_profile;
    op *= factor;
    for (KernelTime& k : c.kernels[name]) k.seconds *= factor;  // the model's split of the measured op
  };
  scale(c.forward.attention_s, at.forward.attention_s, "attn(F)");
  scale(c.backward.attention_input_s, at.backward.attention_input_s, "attn(B)");
  scale(c.backward.attention_weight_s, at.backward.attention_weight_s, "attn(W)");
  if (cost.moe) {
    scale(c.forward.mlp_s, at.forward.mlp_s, "mlp(F)");
    scale(c.backward.mlp_input_s, at.backward.mlp_input_s, "mlp(B)");
    scale(c.backward.mlp_weight_s, at.backward.mlp_weight_s, "mlp(W)");
  }
  if (cost.moe && cal.communication) {
    const double tokens = batch_.micro_batch_tokens() / cal.micro_batch_tokens;
    c.forward.dispatch_s = cal.op_s.at("dispatch(F)") * tokens;
    c.forward.combine_s = cal.op_s.at("combine(F)") * tokens;
    c.backward.combine_s = cal.op_s.at("combine(B)") * tokens;  // its gradients' cast included
    c.backward.combine_cast_s = 0;
    c.backward.dispatch_s = cal.op_s.at("dispatch(B)") * tokens;
  }
  return c;
}

LayerChunks TrainingStep::layer_chunks(const LayerCost& cost, double micro_batch_tokens, int comm_sms) const {
  const Model& m = *model_;
  const int tp = par_.tp, cp = par_.cp;
  const bool sp = par_.sequence_parallel;
  // Every compute op as DeepSeek's framework runs it while communication kernels hold
  // `comm_sms` SMs: GEMMs launched on the SMs left (the profile's GEMM grids are 112 blocks),
  // other kernels sharing the GPU with communication, so slower by sms / (sms - comm_sms). The
  // same in overlapped pairs and alone.
  const int gemm_sms = sms_ - comm_sms;
  const double beside = double(sms_) / double(gemm_sms);
  const Roofline r = roofline_.slowed_by(beside);
  const Attention& a = m.attention;
  const bool moe = cost.moe;
  // This GPU's tokens: its CP shard of the micro-batch, every one of them through its TP shard
  // of the weights (gathered from the sequence-parallel shards first).
  const double tokens = micro_batch_tokens / cp;
  const double core =
      cost.attention_flops_per_token(cost.mean_attended_tokens(batch_.sequence_tokens, AttentionMask::kCausal));
  const double core_flops =
      core * micro_batch_tokens / (double(tp) * cp);  // heads over TP, load-balanced queries over CP
  const bool mla = a.kind == AttentionKind::kMla;
  // Recomputed in the backward with selective recomputation (report §3.2.3): every RMSNorm and
  // MLA's up-projections.
  const bool selective = par_.recompute == Recompute::kSelective;
  // MoE: the rows of one expert shard (the routed rows of every replica's micro-batch, shared
  // over the expert's copies and held by the shard on this GPU; the busiest GPU's, more), and the
  // router's gate on the sequence-parallel shard, in BF16 as the recipe keeps it.
  const int local_experts = moe ? m.moe->routed_experts / par_.ep : 0;
  const double expert_rows = !moe ? 0.0
                                  : micro_batch_tokens * m.moe->active_routed_experts * par_.etp * par_.ep /
                                        (double(m.moe->routed_experts) * tp * cp) * ep_.expert_imbalance;
  const double router_s = moe ? r.bf16_gemm_s(2.0 * m.hidden * m.moe->routed_experts * tokens / (sp ? tp : 1)) : 0.0;

  // GEMMs from the kernel model, shape by shape, in the recipe's precision, on GPUs of the family
  // its constants were fitted on (those with FP8 tensor cores, or where the recipe's library was
  // measured); from the roofline elsewhere.
  const hw::Gpu& gpu = r.gpu();
  const bool kernels = r.gemm_kernels();
  const auto precision = r.gemm_precision();
  // The memory-bound kernels, each at the achieved bandwidth beside communication.
  const LayerMemoryKernels memory = layer_memory_kernels(m, moe, r.fp8_gemms());
  auto memory_s = [&](const std::vector<MemoryKernel>& list, std::vector<KernelTime>* named = nullptr) {
    double sum = 0;
    for (const MemoryKernel& k : list) {
      const double s = memory_kernel_seconds(k, r, tokens, expert_rows * local_experts, tp, sp);
      sum += s;
      if (named) named->push_back({k.name, s});
    }
    return sum;
  };
  // Kernel by kernel, for the ops' kernel lists; their sums are the ops' GEMM time.
  auto gemm_parts = [&](const std::vector<Weight>& weights, double rows) {
    if (kernels) return gemm_kernels(gpu, r.gemm_constants(), weights, rows, 0, gemm_sms, precision, keep_kernels_);
    const std::vector<KernelTime> one = {
        {"GEMMs (roofline)", r.linear_s(forward_flops(weights, rows)), KernelClass::kGemm}};
    return GemmKernels{one, one, one};
  };
  const GemmKernels attn_kernels =
      gemm_parts(tensor_parallel_shard(attention_weights(m), tp, attention_replicated_weights(m)), tokens);
  const GemmSeconds attn = attn_kernels.seconds();
  std::vector<Weight> up = attention_up_projections(m);
  for (auto& w : up) w.out /= tp;
  const double recompute_s = !selective ? 0.0
                             : kernels ? dense_forward_seconds(gpu, r.gemm_constants(), up, tokens, gemm_sms, precision)
                                       : r.linear_s(forward_flops(up, tokens));

  // TP: a block's input all-gathered and its output reduce-scattered with sequence parallelism,
  // or its output all-reduced (the same bytes) without; the backward mirrors it. Where the
  // scenario overlaps them with the block's GEMMs, only what outlasts those is exposed.
  const double block_tp_s = links_.tp_all_reduce ? links_.tp_all_reduce->seconds(tp, 2.0 * m.hidden * tokens)
                                                 : 2 * ring_s(2.0 * m.hidden * tokens, tp, links_.tp_Bps);
  auto exposed = [&](double comm_s, double hidden_behind_s) {
    return par_.tp_comm_overlap ? std::max(0.0, comm_s - hidden_behind_s) : comm_s;
  };
  // CP: each GPU's K and V pass the ring (cp - 1 steps of one shard), behind the attention
  // kernels; the backward passes K, V and their gradients. MLA's K and V are per head.
  const double kv_bytes_per_token = mla ? 2.0 * a.heads * (a.qk_head_dim() + a.v_head_dim) / tp
                                        : 2.0 * 2 * a.kv_heads * a.head_dim / std::min(tp, std::max(1, a.kv_heads));
  const double cp_ring_s = ring_s(kv_bytes_per_token * micro_batch_tokens, cp, links_.cp_Bps);

  LayerChunks c;
  double core_forward_s = r.attention_forward_s(core_flops), core_backward_s = r.attention_backward_s(2.5 * core_flops);
  if (kernels) {
    // The GPU's FlashAttention kernel (FA3 on Hopper, FA2 on Ampere; named in the kernel list) on the SMs communication
    // leaves. With CP each GPU holds two chunks of S / 2cp (causal balance) and meets every other GPU's K and V once
    // around the ring: its own step under the mask, the cp - 1 others half visible on average.
    const double s = batch_.sequence_tokens, chunk = s / cp;
    hw::AttentionShape own{double(batch_.micro_batch_sequences),
                           double(a.heads) / tp,
                           chunk,
                           chunk,
                           double(a.qk_head_dim()),
                           double(a.value_head_dim()),
                           true};
    hw::AttentionShape other = own;
    other.causal = false;
    const hw::FlashAttentionCalibration& fa = r.attention().flash;
    core_forward_s = hw::flash_attention_forward_seconds(gpu, own, gemm_sms, fa) +
                     (cp - 1) * hw::flash_attention_forward_seconds(gpu, other, gemm_sms, fa) / 2;
    core_backward_s = hw::flash_attention_backward_seconds(gpu, own, gemm_sms, fa) +
                      (cp - 1) * hw::flash_attention_backward_seconds(gpu, other, gemm_sms, fa) / 2;
  }
  // Megatron-LM's attention before FlashAttention: the scores through HBM, kernel by kernel (the
  // parse refuses it with CP).
  std::optional<UnfusedAttention> unfused;
  if (par_.unfused_attention) {
    unfused =
        unfused_attention(r,
                          {double(batch_.micro_batch_sequences), double(a.heads) / tp, double(batch_.sequence_tokens),
                           double(a.qk_head_dim()), double(a.value_head_dim()), par_.attention_dropout},
                          gemm_sms);
    core_forward_s = unfused->forward_s();
    core_backward_s = unfused->backward_s();
  }
  c.cp_forward_s = std::max(0.0, cp_ring_s - core_forward_s);
  c.cp_backward_s = std::max(0.0, 2 * cp_ring_s - core_backward_s);
  const double attn_tp_forward = exposed(block_tp_s, attn.forward_s),
               attn_tp_backward = exposed(block_tp_s, attn.input_gradient_s);
  // A MoE layer's router runs in attention's ops, before the dispatch that needs its choices;
  // autograd computes its two gradients together (only the FP8 GEMMs' weight gradients wait).
  const std::vector<MemoryKernel> no_kernels;
  const std::vector<MemoryKernel>& attn_recompute = selective ? memory.attn_recompute : no_kernels;
  const std::vector<MemoryKernel>& mlp_recompute = selective ? memory.mlp_recompute : no_kernels;
  c.forward.attention_s =
      attn.forward_s + core_forward_s + router_s + memory_s(memory.attn_forward) + attn_tp_forward + c.cp_forward_s;
  // FlashAttention's backward runs five GEMMs to the forward's two.
  c.backward.attention_input_s = attn.input_gradient_s + core_backward_s + 2 * router_s + memory_s(attn_recompute) +
                                 memory_s(memory.attn_backward) + recompute_s + attn_tp_backward + c.cp_backward_s;
  c.backward.attention_weight_s = attn.weight_gradient_s;
  c.tp_forward_s = attn_tp_forward;
  c.tp_backward_s = attn_tp_backward;
  if (keep_kernels_) {
    // Projections, the attention kernel before the output projection, then the element-wise rest.
    const GemmKernels& g = attn_kernels;
    auto& f = c.kernels["attn(F)"];
    f.assign(g.forward.begin(), g.forward.end() - 1);
    if (unfused)
      f.insert(f.end(), unfused->forward.begin(), unfused->forward.end());
    else
      f.push_back({kernels ? "FlashAttention forward (" + r.attention().name + ")" : "attention (roofline)",
                   core_forward_s, KernelClass::kAttention});
    f.push_back(g.forward.back());
    memory_s(memory.attn_forward, &f);
    if (moe) f.push_back({"router (BF16 gate GEMM)", router_s, KernelClass::kGemm});
    f.push_back({"TP all-gather and reduce-scatter (exposed)", attn_tp_forward, KernelClass::kCommunication});
    f.push_back({"CP ring of K and V (exposed)", c.cp_forward_s, KernelClass::kCommunication});
    auto& b = c.kernels["attn(B)"];
    memory_s(attn_recompute, &b);
    if (moe) b.push_back({"router gradients (BF16 GEMMs)", 2 * router_s, KernelClass::kGemm});
    memory_s(memory.attn_backward, &b);
    if (recompute_s > 0) b.push_back({"recompute MLA up-projections", recompute_s, KernelClass::kGemm});
    b.push_back(g.input_gradient.back());
    if (unfused)
      b.insert(b.end(), unfused->backward.begin(), unfused->backward.end());
    else
      b.push_back({kernels ? "FlashAttention backward (" + r.attention().name + ")" : "attention backward (roofline)",
                   core_backward_s, KernelClass::kAttention});
    b.insert(b.end(), g.input_gradient.rbegin() + 1, g.input_gradient.rend());
    b.push_back({"TP all-gather and reduce-scatter (exposed)", attn_tp_backward, KernelClass::kCommunication});
    b.push_back({"CP ring of K, V and gradients (exposed)", c.cp_backward_s, KernelClass::kCommunication});
    c.kernels["attn(W)"] = g.weight_gradient;
  }

  if (!moe) {
    const GemmKernels k = gemm_parts(tensor_parallel_shard(gated_ffn_weights(m, m.dense_ffn), tp, 0), tokens);
    const GemmSeconds g = k.seconds();
    const double tp_forward = exposed(block_tp_s, g.forward_s), tp_backward = exposed(block_tp_s, g.input_gradient_s);
    c.forward.mlp_s = g.forward_s + memory_s(memory.mlp_forward) + tp_forward;
    c.backward.mlp_input_s = g.input_gradient_s + memory_s(mlp_recompute) + memory_s(memory.mlp_backward) + tp_backward;
    c.backward.mlp_weight_s = g.weight_gradient_s;
    if (keep_kernels_) {
      auto& f = c.kernels["mlp(F)"];
      f.clear();
      memory_s(memory.mlp_forward, &f);
      f.insert(f.end(), k.forward.begin(), k.forward.end());
      f.push_back({"TP all-gather and reduce-scatter (exposed)", tp_forward, KernelClass::kCommunication});
      auto& b = c.kernels["mlp(B)"];
      b.assign(k.input_gradient.rbegin(), k.input_gradient.rend());
      memory_s(mlp_recompute, &b);
      memory_s(memory.mlp_backward, &b);
      b.push_back({"TP all-gather and reduce-scatter (exposed)", tp_backward, KernelClass::kCommunication});
      c.kernels["mlp(W)"] = k.weight_gradient;
    }
    c.tp_forward_s += tp_forward;
    c.tp_backward_s += tp_backward;
  } else {
    const Moe& e = *m.moe;
    const int etp = par_.etp;
    const double rows = expert_rows;
    const auto expert_weights = tensor_parallel_shard(gated_ffn_weights(m, e.expert_ffn), etp, 0);
    const auto shared_weights =
        tensor_parallel_shard(gated_ffn_weights(m, double(e.expert_ffn) * e.shared_experts), tp, 0);
    GemmSeconds g;
    GemmKernels routed, shared;  // the kernels, for the ops' lists
    if (kernels) {
      routed = gemm_kernels(gpu, r.gemm_constants(), expert_weights, rows, local_experts, gemm_sms, precision,
                            keep_kernels_);
      if (e.shared_experts > 0) shared = gemm_parts(shared_weights, tokens);
      const GemmSeconds r_s = routed.seconds(), s_s = shared.seconds();
      g = {r_s.forward_s + s_s.forward_s, r_s.input_gradient_s + s_s.input_gradient_s,
           r_s.weight_gradient_s + s_s.weight_gradient_s};
    } else {
      const double flops = forward_flops(expert_weights, rows) * local_experts +
                           (e.shared_experts > 0 ? forward_flops(shared_weights, tokens) : 0.0);
      g = {r.linear_s(flops), r.linear_s(flops), r.linear_s(flops)};
      const std::vector<KernelTime> one = {
          {"GEMMs (roofline)", g.forward_s, KernelClass::kGemm}};  // routed and shared experts
      routed = GemmKernels{one, one, one};
    }
    // TP around the MoE block: the shared experts, cut over TP, gather and scatter like a dense
    // block; routed experts cut over ETP gather their ETP group's sequence shards before the
    // dispatch and scatter them after the combine (one collective with TP's where the groups are
    // one); whole experts take tokens from the sequence shards.
    const double shared_tp_s = e.shared_experts > 0 ? block_tp_s : 0.0;
    const double routed_tp_s =
        etp == tp ? (etp > 1 ? block_tp_s : 0.0) : 2 * ring_s(2.0 * m.hidden * tokens * etp / tp, etp, links_.etp_Bps);
    const double moe_tp_s = etp == tp ? std::max(shared_tp_s, routed_tp_s) : shared_tp_s + routed_tp_s;
    const double tp_forward = exposed(moe_tp_s, g.forward_s);
    const double tp_backward = exposed(moe_tp_s, g.input_gradient_s);
    c.forward.mlp_s = g.forward_s + memory_s(memory.mlp_forward) + tp_forward;
    c.backward.mlp_input_s = g.input_gradient_s + memory_s(mlp_recompute) + memory_s(memory.mlp_backward) + tp_backward;
    c.backward.mlp_weight_s = g.weight_gradient_s + memory_s(memory.mlp_weight);
    if (keep_kernels_) {
      auto& f = c.kernels["mlp(F)"];
      f.clear();
      memory_s(memory.mlp_forward, &f);
      f.insert(f.end(), shared.forward.begin(), shared.forward.end());
      f.insert(f.end(), routed.forward.begin(), routed.forward.end());
      f.push_back({"TP all-gather and reduce-scatter (exposed)", tp_forward, KernelClass::kCommunication});
      auto& b = c.kernels["mlp(B)"];
      b.assign(routed.input_gradient.rbegin(), routed.input_gradient.rend());
      b.insert(b.end(), shared.input_gradient.rbegin(), shared.input_gradient.rend());
      memory_s(mlp_recompute, &b);
      memory_s(memory.mlp_backward, &b);
      b.push_back({"TP all-gather and reduce-scatter (exposed)", tp_backward, KernelClass::kCommunication});
      auto& w = c.kernels["mlp(W)"];
      w = routed.weight_gradient;
      w.insert(w.end(), shared.weight_gradient.begin(), shared.weight_gradient.end());
      memory_s(memory.mlp_weight, &w);
    }
    c.forward.dispatch_s = ep_.dispatch_forward_s;
    c.forward.combine_s = ep_.combine_forward_s;
    c.backward.combine_cast_s = memory_s(memory.combine_backward);
    c.backward.combine_s = c.backward.combine_cast_s + ep_.combine_backward_s;
    c.backward.dispatch_s = ep_.dispatch_backward_s;
    c.tp_forward_s += tp_forward;
    c.tp_backward_s += tp_backward;
  }
  for (auto& [op, list] : c.kernels)  // what the model does not spend, it does not list
    list.erase(std::remove_if(list.begin(), list.end(), [](const KernelTime& k) { return !(k.seconds > 0); }),
               list.end());
  if (par_.recompute == Recompute::kFull) {
    // The layer's forward, communication included, rerun before its backward.
    for (const auto& [backward, forward] : {std::pair{"attn(B)", "attn(F)"}, {"mlp(B)", "mlp(F)"}}) {
      if (!keep_kernels_) break;
      auto& list = c.kernels[backward];
      std::vector<KernelTime> rerun;
      for (const KernelTime& k : c.kernels[forward]) rerun.push_back({"recompute: " + k.name, k.seconds, k.kind});
      list.insert(list.begin(), rerun.begin(), rerun.end());
    }
    c.backward.attention_input_s += c.forward.attention_s;
    c.backward.mlp_input_s += c.forward.mlp_s;
    c.backward.combine_s += c.forward.combine_s;
    c.backward.dispatch_s += c.forward.dispatch_s;
    c.tp_backward_s += c.tp_forward_s;
    c.cp_backward_s += c.cp_forward_s;
  }
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
    case Pass::kForward:
      return st.forward_s();
    case Pass::kBackward:
      return st.input_backward_s() + st.weight_s();
    case Pass::kBackwardInput:
      return st.input_backward_s();
    case Pass::kWeight:
      return st.weight_s();
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

StepOpGraph TrainingStep::step_op_graph(const Step& step) const {
  StepOpGraph g;
  auto kernels_of = [](const LayerChunks& l, const std::string& name) -> const std::vector<KernelTime>* {
    const auto it = l.kernels.find(name);
    return it == l.kernels.end() ? nullptr : &it->second;
  };
  auto before_send_of = [](const LayerChunks& l, const std::string& name) {
    return name == "combine(B)" ? l.backward.combine_cast_s : 0.0;
  };
  auto serial = [&]() -> StepOpGraph::Segment& { return g.segments.emplace_back(); };
  // An op of a serial segment waits for the one before it.
  auto add = [&](StepOpGraph::Segment& seg, const std::string& name, const std::string& stream, int layer,
                 double seconds, const LayerChunks* l = nullptr) {
    if (seconds <= 0) return;
    std::vector<int> deps;
    if (!seg.ops.empty()) deps.push_back(static_cast<int>(seg.ops.size()) - 1);
    seg.ops.push_back({name, stream, layer, seconds, std::move(deps), l ? kernels_of(*l, name) : nullptr,
                       l ? before_send_of(*l, name) : 0.0});
  };
  auto layer_of = [&](int stage, std::size_t i) {
    return layout_.first_layer[static_cast<std::size_t>(stage)] +
           static_cast<int>(i);  // the MTP layer follows the last
  };
  auto forward = [&](const LayerChunks& l, int layer) {
    auto& seg = serial();
    const ForwardChunk& x = l.forward;
    add(seg, "attn(F)", "compute", layer, x.attention_s, &l);
    add(seg, "dispatch(F)", "communication", layer, x.dispatch_s);
    add(seg, "mlp(F)", "compute", layer, x.mlp_s, &l);
    add(seg, "combine(F)", "communication", layer, x.combine_s);
  };
  auto backward = [&](const LayerChunks& l, int layer, bool input, bool weight) {
    auto& seg = serial();
    const BackwardChunk& x = l.backward;
    if (input) add(seg, "combine(B)", "communication", layer, x.combine_s, &l);
    if (input) add(seg, "mlp(B)", "compute", layer, x.mlp_input_s, &l);
    if (weight) add(seg, "mlp(W)", "compute", layer, x.mlp_weight_s, &l);
    if (input) add(seg, "dispatch(B)", "communication", layer, x.dispatch_s);
    if (input) add(seg, "attn(B)", "compute", layer, x.attention_input_s, &l);
    if (weight) add(seg, "attn(W)", "compute", layer, x.attention_weight_s, &l);
  };
  auto other = [&](double seconds) {
    if (seconds > 0) add(serial(), "other", "compute", -1, seconds);
  };
  if (step.chunks.size() == 2) {
    const Chunk& fc = step.chunks[0].pass == Pass::kForward ? step.chunks[0] : step.chunks[1];
    const Chunk& bc = step.chunks[0].pass == Pass::kForward ? step.chunks[1] : step.chunks[0];
    const bool with_weight = bc.pass == Pass::kBackward;
    const StageChunks& f = stages_[static_cast<std::size_t>(fc.position)];
    const StageChunks& b = stages_[static_cast<std::size_t>(bc.position)];
    other(f.extra_forward_s + b.extra_input_s + (with_weight ? b.extra_weight_s : 0.0));
    // Layer by layer: the forward runs its layers first to last, the backward last to first; the
    // i-th of each overlap as in Figure 4 (already timed beside communication: no slowdown
    // there), all in one segment: a layer's first ops wait for what the layer before hands them
    // (its output, once combine(F) has brought it back; its input gradient, once attn(B) has
    // computed it) and for their streams, so that one layer's combine(B) runs beside the last
    // one's attn(W), as in DeepSeek's profile. A chunk with more layers runs its rest alone.
    const std::size_t n = std::max(f.layers.size(), b.layers.size());
    std::optional<std::size_t> paired;              // the segment of the overlapped layers
    std::vector<int> output_ready, gradient_ready;  // of the layer pair before: the ops those wait for
    for (std::size_t i = 0; i < n; ++i) {
      const bool has_f = i < f.layers.size(), has_b = i < b.layers.size();
      const std::size_t bi = has_b ? b.layers.size() - 1 - i : 0;
      if (has_f && has_b) {
        BackwardChunk back = b.layers[bi].backward;
        if (!with_weight) back.attention_weight_s = back.mlp_weight_s = 0;
        const auto pair = overlapped_chunk_pair({f.layers[i].forward, back, sms_, 0});
        if (!paired) {
          paired = g.segments.size();
          g.segments.emplace_back();
        }
        auto& seg = g.segments[*paired];
        // Ops of no time are left out; what waited for one waits for what it waited for,
        // including the op before it on its stream. `stands_for[k]`: the kept ops task k's end is.
        std::vector<std::vector<int>> stands_for(pair.tasks().size());
        std::map<std::string, int> last_on_stream;  // task index
        for (std::size_t k = 0; k < pair.tasks().size(); ++k) {
          const auto& task = pair.tasks()[k];
          const std::string& task_name = pair.name(task);
          const std::string& task_stream = pair.stream(task);
          std::vector<int> waits;
          for (auto d : task.deps) waits.insert(waits.end(), stands_for[d].begin(), stands_for[d].end());
          if (task_name == "ATTN (F)") waits.insert(waits.end(), output_ready.begin(), output_ready.end());
          if (task_name == "COMBINE (B)") waits.insert(waits.end(), gradient_ready.begin(), gradient_ready.end());
          const auto before = last_on_stream.find(task_stream);
          const bool before_dropped = before != last_on_stream.end() && pair.tasks()[before->second].seconds <= 0;
          if (before_dropped)
            waits.insert(waits.end(), stands_for[before->second].begin(), stands_for[before->second].end());
          std::sort(waits.begin(), waits.end());
          waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
          last_on_stream[task_stream] = static_cast<int>(k);
          if (task.seconds <= 0) {
            stands_for[k] = std::move(waits);
            continue;
          }
          const std::string name = profile_name(task_name);
          const bool is_forward = name.find("(F)") != std::string::npos;
          const LayerChunks& l = is_forward ? f.layers[i] : b.layers[bi];
          stands_for[k] = {static_cast<int>(seg.ops.size())};
          seg.ops.push_back({name, task_stream, is_forward ? layer_of(fc.position, i) : layer_of(bc.position, bi),
                             task.seconds, std::move(waits), kernels_of(l, name), before_send_of(l, name)});
        }
        for (std::size_t k = 0; k < pair.tasks().size(); ++k) {
          if (pair.name(pair.tasks()[k]) == "COMBINE (F)") output_ready = stands_for[k];
          if (pair.name(pair.tasks()[k]) == "ATTN (B)") gradient_ready = stands_for[k];
        }
      } else if (has_f) {
        forward(f.layers[i], layer_of(fc.position, i));
      } else {
        backward(b.layers[bi], layer_of(bc.position, bi), true, with_weight);
      }
    }
    return g;
  }
  const Chunk& c = step.chunks[0];
  const StageChunks& st = stages_[static_cast<std::size_t>(c.position)];
  const bool input = c.pass != Pass::kWeight, weight = c.pass == Pass::kBackward || c.pass == Pass::kWeight;
  if (c.pass == Pass::kForward) {
    other(st.extra_forward_s);
    for (std::size_t i = 0; i < st.layers.size(); ++i) forward(st.layers[i], layer_of(c.position, i));
    return g;
  }
  other((input ? st.extra_input_s : 0.0) + (weight ? st.extra_weight_s : 0.0));
  for (std::size_t i = st.layers.size(); i-- > 0;) backward(st.layers[i], layer_of(c.position, i), input, weight);
  return g;
}

std::vector<core::TaskSpan> segment_spans(const StepOpGraph::Segment& seg) {
  std::vector<core::TaskSpan> spans(seg.ops.size());
  std::map<std::string, double> stream_free_s;
  for (std::size_t k = 0; k < seg.ops.size(); ++k) {
    const auto& op = seg.ops[k];
    double start_s = stream_free_s[op.stream];
    for (int d : op.deps) start_s = std::max(start_s, spans[static_cast<std::size_t>(d)].end_s);
    spans[k] = {start_s, start_s + op.seconds};
    stream_free_s[op.stream] = spans[k].end_s;
  }
  return spans;
}

std::vector<OpSpan> TrainingStep::step_ops(const Step& step) const {
  std::vector<OpSpan> ops;
  double t = 0;
  for (const auto& seg : step_op_graph(step).segments) {
    const auto spans = segment_spans(seg);
    double segment_s = 0;
    for (std::size_t k = 0; k < seg.ops.size(); ++k) {
      const auto& op = seg.ops[k];
      ops.push_back(
          {op.name, op_stream(op.name, op.stream), op.layer, t + spans[k].start_s, t + spans[k].end_s, op.kernels});
      segment_s = std::max(segment_s, spans[k].end_s);
    }
    t += segment_s;
  }
  return ops;
}

double pp_transfer_bytes(const Model& model, const TrainingBatch& batch, const TrainingParallelism& par) {
  return 2.0 * model.hidden * batch.micro_batch_tokens() / par.cp / (par.sequence_parallel ? par.tp : 1);
}

double TrainingStep::pp_transfer_bytes() const { return workload::pp_transfer_bytes(*model_, batch_, par_); }

PipelineGraph TrainingStep::pipeline_graph() const {
  return workload::pipeline_graph(
      schedule_, [this](const Step& s) { return step_seconds(s); }, pp_transfer_bytes());
}

StepBreakdown TrainingStep::breakdown(const PipelineGraph& graph, const core::Timeline& timeline) const {
  const auto m = pipeline_metrics(schedule_, graph, timeline);
  StepBreakdown b;
  b.rank = m.critical_rank;
  b.bubble_s = m.bubble_s;
  const auto& steps = schedule_.steps[static_cast<std::size_t>(b.rank)];
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto span = graph.span(timeline, b.rank, i);
    const double d = span.end_s - span.start_s;
    if (steps[i].chunks.size() == 2)
      b.overlapped_s += d;
    else if (steps[i].chunks[0].pass == Pass::kForward)
      b.forward_s += d;
    else if (steps[i].chunks[0].pass == Pass::kWeight)
      b.weight_s += d;
    else
      b.backward_s += d;
  }
  return b;
}

std::vector<int> TrainingStep::stages_of_rank(int rank) const {
  std::vector<int> held;
  for (const auto& path : schedule_.paths)
    for (std::size_t pos = 0; pos < path.size(); ++pos)
      if (path[pos] == rank && std::find(held.begin(), held.end(), int(pos)) == held.end()) held.push_back(int(pos));
  std::sort(held.begin(), held.end());
  return held;
}

RankParameters TrainingStep::rank_parameters(int rank) const {
  const Model& m = *model_;
  const int n_stages = static_cast<int>(layout_.layers.size());
  const double routed = m.moe ? 3.0 * m.hidden * m.moe->expert_ffn * m.moe->routed_experts : 0.0;
  RankParameters p;
  auto add_layer = [&](bool moe) {
    p.dense += layer_parameters(m, moe).total() - (moe ? routed : 0.0);
    p.expert += (moe ? routed : 0.0) / (par_.ep * par_.etp);
  };
  for (int s : stages_of_rank(rank)) {
    for (int l = layout_.first_layer[s]; l < layout_.first_layer[s] + layout_.layers[s]; ++l)
      add_layer(m.is_moe_layer(l));
    if (s == 0) p.dense += double(m.vocab) * m.hidden;
    if (s == n_stages - 1)  // a tied head is the embedding, held here too unless the first stage is this one
      p.dense += (m.tied_embeddings && n_stages == 1 ? 0.0 : double(m.vocab) * m.hidden) + m.hidden;
    if (s == layout_.mtp_stage) {
      add_layer(m.moe.has_value());
      p.dense += 2.0 * m.hidden * m.hidden + 2.0 * m.hidden;
      // The MTP module's head is the output layer's, held here too unless this is the last stage.
      if (s != n_stages - 1) p.dense += double(m.vocab) * m.hidden;
    }
  }
  p.dense /= par_.tp;  // TP's shard (norm weights and MLA's small down-projections are whole: ignored)
  return p;
}

RankParameters TrainingStep::rank_parameters() const {
  RankParameters most;
  for (int r = 0; r < schedule_.ranks; ++r) {
    const RankParameters p = rank_parameters(r);
    if (p.dense + p.expert > most.dense + most.expert) most = p;
  }
  return most;
}

}  // namespace workload
