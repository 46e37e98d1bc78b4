#include "studies/inference/study_inference.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <tuple>

#include "core/analytic_engine.hpp"
#include "core/input_error.hpp"
#include "core/units.hpp"
#include "serving/gpu_memory.hpp"
#include "studies/config/affinity_config.hpp"
#include "studies/config/cluster_config.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/config/model_config.hpp"
#include "studies/config/overlap_config.hpp"
#include "workload/inference/decode_bound.hpp"
#include "workload/inference/inference.hpp"
#include "workload/inference/serving_step.hpp"

namespace studies {

namespace {

std::string point_id(const char* a, double x, const char* b, double y) {
  return std::string(a) + format_number(x) + "_" + b + format_number(y);
}

std::string gb(double bytes) { return format_number(std::round(bytes / 1e8) / 10); }

// What one GPU holds at a point: the plan (weights, the step's activations, the reserve, and what
// that leaves for KV) and the KV cache its DP rank's sequences take on it.
struct PointMemory {
  serving::MemoryPlan plan;
  double sequences_per_rank = 0;
  double kv_bytes = 0;

  double total_bytes() const { return plan.weight_bytes + plan.activation_bytes + plan.reserve_bytes + kv_bytes; }
  bool fits() const { return total_bytes() <= plan.hbm_bytes; }
};

class InferenceStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  ClusterConfig cluster;
  ComputeConfig compute;
  workload::ServingDeployment deployment;
  workload::ServingLinks links;
  bool flow = true;
  bool prefill = false;
  std::vector<double> sequences;  // decode: running sequences; prefill: prompts
  std::vector<double> lengths;    // decode: context tokens; prefill: prompt tokens
  workload::ServingRequest base;
  std::optional<double> mtp_acceptance;
  double reserve_bytes = 0;  // each GPU's runtime reserve: CUDA context, communication buffers
  bool layer_parts = false;  // the first point's MoE layer parted as a profiler parts it

  // A point's memory: `n` sequences (prompts) of `len` tokens of context (prompt) over the unit.
  PointMemory memory_at(double n, double len) const {
    PointMemory m;
    m.sequences_per_rank = std::ceil(n / deployment.attention_dp());
    const int tokens_per_sequence = prefill ? static_cast<int>(len) : 1 + (mtp_acceptance ? 1 : 0);
    serving::MemoryInput in;
    in.max_step_tokens = static_cast<int>(std::min(m.sequences_per_rank * tokens_per_sequence, 2e9));
    in.runtime_reserve_bytes = reserve_bytes;
    in.kv_bytes_per_element = base.kv_bytes_per_element;
    in.weights = compute.precision();
    in.mtp = mtp_acceptance.has_value();
    m.plan = serving::plan_memory(*model, *cluster.gpu, deployment, in);
    const double context = prefill ? len : len + tokens_per_sequence;
    m.kv_bytes =
        m.sequences_per_rank * m.plan.kv_pages.bytes_gpu(context) * (prefill ? 1.0 : 1.0 - base.kv_offload_fraction);
    return m;
  }

  // The unit's fabric and links. Forwarded all-to-alls run on SM kernels whose channels cap each
  // GPU's links; direct ones are driven by the NIC (IBGDA).
  std::pair<net::Cluster, workload::ServingLinks> unit_links() const {
    net::Cluster unit = cluster.cluster;
    unit.nodes = deployment.gpus / deployment.gpus_per_node;
    workload::ServingLinks l = links;
    if (!deployment.direct_comm) {
      l.ib_Bps = unit.scale_out_Bps = compute.kernels.ib_Bps(l.ib_Bps);
      l.nvlink_Bps = unit.scale_up_Bps = compute.kernels.nvlink_Bps(l.nvlink_Bps);
    }
    return {unit, l};
  }

  // One step at the first point: where its time goes (workload::step_breakdown).
  std::optional<StudyResult> step(const RunOptions& options) const override {
    const workload::Roofline roofline = compute.roofline(*cluster.gpu);
    const auto [unit, links] = unit_links();
    auto q = base;
    q.prefill = prefill;
    q.sequences = static_cast<int>(sequences.front());
    if (prefill)
      q.tokens_per_sequence = static_cast<int>(lengths.front());
    else
      q.context_tokens = static_cast<int>(lengths.front());
    const auto step =
        workload::serving_step(*model, roofline, deployment, links, q, flow && options.simulate ? &unit : nullptr);
    const workload::ServingStepBreakdown b = workload::step_breakdown(step);
    StudyResult r;
    const std::string label = std::string(prefill ? "prefill of " : "decode of ") + format_number(sequences.front()) +
                              (prefill ? " prompts of " : " sequences at ") + format_number(lengths.front()) +
                              (prefill ? " tokens" : " tokens of context");
    for (const auto& [id, metric, seconds] : std::vector<std::tuple<std::string, std::string, double>>{
             {"attention", "attention, all layers and micro-batches", b.attention_s},
             {"routed_experts", "routed experts", b.routed_experts_s},
             {"shared_expert", "shared expert (on this GPU)", b.shared_expert_s},
             {"gate", "gate", b.gate_s},
             {"dense_ffn", "dense layers' FFN", b.dense_ffn_s},
             {"memory_kernels", "of the above: memory-bound kernels", b.memory_kernels_s},
             {"tp_comm", "of the above: TP all-gathers and reduce-scatters (NVLink)", b.tp_comm_s},
             {"mtp", "of the above: the MTP module's layer", b.mtp_s},
             {"head", "final norm and LM head", b.head_s},
             {"dispatch", "dispatch, hidden or not", b.dispatch_s},
             {"combine", "combine, hidden or not", b.combine_s},
             {"exposed_comm", "communication exposed (the step beyond its compute)", b.exposed_comm_s},
             {"step", "the step", b.step_s}})
      r.rows.push_back({"step/" + id, label, metric, "ms", {}, seconds * 1e3, Basis::kSimulated});
    return r;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const workload::Roofline roofline = compute.roofline(*cluster.gpu);
    const auto [unit, links] = unit_links();
    const net::Cluster* simulate_on = flow && options.simulate ? &unit : nullptr;
    const double gpus = deployment.gpus;
    std::optional<workload::ServingStep> first;
    workload::AllToAllCache cache;
    for (double n : sequences)
      for (double len : lengths) {
        auto q = base;
        q.prefill = prefill;
        q.sequences = static_cast<int>(n);
        if (prefill)
          q.tokens_per_sequence = static_cast<int>(len);
        else
          q.context_tokens = static_cast<int>(len);
        auto step = workload::serving_step(*model, roofline, deployment, links, q, simulate_on, &cache);
        const std::string id = prefill ? point_id("p", n, "len", len) : point_id("b", n, "ctx", len);
        const std::string label = prefill ? format_number(n) + " prompts x " + format_number(len) + " tokens"
                                          : format_number(n) + " sequences, context " + format_number(len);
        if (prefill) {
          const double tokens = n * len;
          r.rows.push_back({id + "/ttft",
                            label,
                            "time to first token",
                            "ms",
                            {},
                            step.step_s / core::kMillisecond,
                            Basis::kSimulated});
          r.rows.push_back({id + "/tokens_per_s",
                            label,
                            "prefill tokens/s per GPU",
                            "tokens/s",
                            {},
                            tokens / step.step_s / gpus,
                            Basis::kSimulated});
        } else {
          r.rows.push_back(
              {id + "/tpot", label, "TPOT", "ms", {}, step.step_s / core::kMillisecond, Basis::kSimulated});
          r.rows.push_back({id + "/user_tokens_per_s",
                            label,
                            "tokens/s per user",
                            "tokens/s",
                            {},
                            1.0 / step.step_s,
                            Basis::kSimulated});
          r.rows.push_back({id + "/gpu_tokens_per_s",
                            label,
                            "tokens/s per GPU",
                            "tokens/s",
                            {},
                            n / step.step_s / gpus,
                            Basis::kSimulated});
          if (!base.compute) add_bound_rows(r, id, label, n, step);
          if (mtp_acceptance) {
            const auto mtp_step = add_mtp_rows(r, id, label, step, roofline, q, simulate_on, cache);
            if (layer_parts && !first) add_layer_part_rows(r, id, label + ", MTP step", mtp_step);
          }
        }
        if (layer_parts && !first && (prefill || !mtp_acceptance)) add_layer_part_rows(r, id, label, step);
        if (!first) first = std::move(step);
      }
    add_memory_rows(r);
    const auto& c = first->moe_layer;
    auto us = [](double s) { return format_number(s / core::kMicrosecond); };
    r.notes.push_back(
        std::string(prefill ? "Prefill" : "Decode") + " unit of " + std::to_string(deployment.gpus) + " " +
        cluster.gpu->name + " GPUs: attention TP" + std::to_string(deployment.attention_tp) + " with SP, DP" +
        std::to_string(deployment.attention_dp()) + "; experts on " + std::to_string(deployment.routed_gpus) +
        " GPUs (" + std::to_string(model->moe->routed_experts / deployment.routed_gpus) + " each), shared expert " +
        (deployment.dedicated_shared && deployment.shared_gpus() > 0
             ? "on the other " + std::to_string(deployment.shared_gpus()) + " GPUs"
             : "on every GPU for its own tokens") +
        "; " +
        (deployment.direct_comm ? "point-to-point dispatch and combine (IBGDA)"
                                : "dispatch over IB once per node, then NVLink") +
        ", " + std::to_string(deployment.comm_sms) + " SMs for communication; " +
        std::to_string(deployment.micro_batches) +
        " micro-batches overlapped: " + describe_overlap(deployment, prefill) + "; " +
        (simulate_on ? "all-to-all flow-simulated at every batch" : "all-to-all from the busiest port") +
        ". First point, one MoE layer and micro-batch: attention " + us(c.attention_s) + " us" +
        (c.kv_fetch_s > 0 ? ", KV fetch over PCIe " + us(c.kv_fetch_s) + " us" : "") + ", dispatch " +
        us(c.dispatch_s) + " us, experts " + us(c.expert_s) + " us, combine " + us(c.combine_s) +
        " us; busiest expert GPU " + format_number(first->expert_imbalance) + "x the mean. " +
        (prefill          ? std::string("MTP: none in prefill.")
         : mtp_acceptance ? "MTP: on, each step verifying one drafted token, accepted with probability " +
                                format_number(*mtp_acceptance) + " (the MTP rows); the TPOT rows are without it."
                          : std::string("MTP: off (give /decode/mtp_acceptance for its rows).")));
    if (options.trace) r.trace_json = core::evaluate_analytically(first->graph).chrome_trace_json();
    return r;
  }

 private:
  // One GPU's memory at the largest point (the most sequences at the longest context), as the
  // parse checked every point's.
  void add_memory_rows(StudyResult& r) const {
    const double n = *std::max_element(sequences.begin(), sequences.end());
    const double len = *std::max_element(lengths.begin(), lengths.end());
    const PointMemory m = memory_at(n, len);
    const std::string label =
        "per GPU at " + format_number(n) + (prefill ? " prompts x " : " sequences x ") + format_number(len) + " tokens";
    for (const auto& [id, metric, bytes] : std::vector<std::tuple<std::string, std::string, double>>{
             {"weights", "weights", m.plan.weight_bytes},
             {"activations", "activations of a step", m.plan.activation_bytes},
             {"reserve", "runtime reserve", m.plan.reserve_bytes},
             {"kv_cache", prefill ? "KV cache of the prompts" : "KV cache of the sequences", m.kv_bytes},
             {"total", "memory used", m.total_bytes()},
             {"hbm", "memory of the GPU", m.plan.hbm_bytes}})
      r.rows.push_back(
          {"memory/" + id, label, metric, "GB", {}, bytes / 1e9, id == "hbm" ? Basis::kInput : Basis::kFormula});
  }

  // ISCA'25 §2.3.2's bound at this batch: each GPU's tokens of a micro-batch to its 9 experts over
  // IB, FP8 out and BF16 back, two micro-batches per layer.
  void add_bound_rows(StudyResult& r, const std::string& id, const std::string& label, double n,
                      const workload::ServingStep& step) const {
    workload::DecodeBoundInput in;
    in.tokens_per_device = n / deployment.micro_batches / deployment.gpus;
    in.experts_per_token = model->moe->active_routed_experts + model->moe->shared_experts;
    in.hidden = model->hidden;
    in.link_Bps = links.ib_Bps;
    in.layers = model->layers;
    in.micro_batches = deployment.micro_batches;
    const auto bound = workload::decode_bound(in);
    r.rows.push_back({id + "/bound_tpot",
                      label,
                      "TPOT bound, closed form (hidden " + std::to_string(model->hidden) + ")",
                      "ms",
                      {},
                      bound.tpot_s / core::kMillisecond});
    r.rows.push_back({id + "/over_bound",
                      label,
                      "simulated / closed-form bound",
                      "x",
                      {},
                      step.step_s / bound.tpot_s,
                      Basis::kSimulated});
  }

  // One MoE layer of the step, both micro-batches, in the parts a profiler's trace gives (DeepSeek's
  // serving profiles, notes/serving-profiles.md): the attention kernel; the other GEMMs (attention's
  // projections, the shared expert, the router); the routed experts' GEMMs with their SwiGLU; the
  // other memory-bound kernels; each all-to-all from its start to its end; and the layer's wall
  // time, as one more MoE layer adds to the step's schedule. Compute at the rate it runs beside
  // communication kernels that hold SMs.
  void add_layer_part_rows(StudyResult& r, const std::string& id, const std::string& label,
                           const workload::ServingStep& step) const {
    const auto& c = step.moe_layer;
    const double mb = step.micro_batches, slow = step.compute_slowdown;
    const double attention_memory_s = c.memory_kernels_s - c.expert_memory_s;
    const double routed_gemms_s = c.expert_s - c.shared_s - c.gate_s - c.expert_memory_s;
    // The layer's wall time: the step's layers with and without one MoE layer, as scheduled.
    std::vector<workload::MicroBatchCosts> fewer = step.layers;
    for (std::size_t l = 0; l < fewer.size(); ++l)
      if (fewer[l].moe()) {
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(l));
        break;
      }
    auto makespan_s = [&](const std::vector<workload::MicroBatchCosts>& layers) {
      return workload::serving_makespan_s(layers, step.micro_batches, slow, step.overlap, step.prefill);
    };
    const std::string what = label + ": one MoE layer, " + std::to_string(step.micro_batches) + " micro-batches";
    for (const auto& [part, metric, seconds] : std::vector<std::tuple<std::string, std::string, double>>{
             {"wall", "layer, wall (one more MoE layer in the step's schedule)",
              makespan_s(step.layers) - makespan_s(fewer)},
             {"attention", "attention kernel", mb * slow * c.core_attention_s},
             {"gemms", "other GEMMs (attention projections, shared expert, router)",
              mb * slow *
                  (c.attention_s - c.core_attention_s - attention_memory_s - c.tp_comm_s + c.shared_s + c.gate_s)},
             {"routed_experts", "routed experts' GEMMs with their SwiGLU", mb * slow * (routed_gemms_s + c.swiglu_s)},
             {"memory_kernels", "other memory-bound kernels (norms, casts, RoPE, router, permutes)",
              mb * slow * (c.memory_kernels_s - c.swiglu_s)},
             {"dispatch", "dispatch, start to end", mb * c.dispatch_s},
             {"combine", "combine, start to end", mb * c.combine_s}})
      r.rows.push_back({id + "/layer/" + part, what, metric, "ms", {}, seconds * 1e3, Basis::kSimulated});
  }

  // MTP speculative decoding: each step verifies the drafted token (two tokens per sequence) and
  // drafts the next with the MTP module; it yields 1 + acceptance tokens on average.
  workload::ServingStep add_mtp_rows(StudyResult& r, const std::string& id, const std::string& label,
                                     const workload::ServingStep& plain, const workload::Roofline& roofline,
                                     workload::ServingRequest q, const net::Cluster* simulate_on,
                                     workload::AllToAllCache& cache) const {
    q.tokens_per_sequence = 2;
    q.mtp_drafts = 1;
    const auto step = workload::serving_step(*model, roofline, deployment, links, q, simulate_on, &cache);
    const double tokens_per_step = 1 + *mtp_acceptance;
    r.rows.push_back({id + "/mtp_step",
                      label,
                      "MTP: step (verify 2 tokens + draft)",
                      "ms",
                      {},
                      step.step_s / core::kMillisecond,
                      Basis::kSimulated});
    r.rows.push_back({id + "/mtp_user_tokens_per_s",
                      label,
                      "MTP: tokens/s per user",
                      "tokens/s",
                      {},
                      tokens_per_step / step.step_s,
                      Basis::kSimulated});
    r.rows.push_back({id + "/mtp_speedup",
                      label,
                      "MTP: speedup in tokens/s",
                      "x",
                      {},
                      tokens_per_step / step.step_s * plain.step_s,
                      Basis::kSimulated});
    return step;
  }
};

}  // namespace

std::unique_ptr<Study> parse_inference_study(core::JsonReader& root) {
  auto s = std::make_unique<InferenceStudy>();
  s->model = &read_model(root);
  if (!s->model->moe)
    throw core::InputError(root.pointer_of("model"),
                           "'" + s->model->name + "' is dense; this study serves an MoE model");
  s->cluster = parse_cluster(root.object("cluster"));
  s->flow = root.one_of("mode", {"flow", "analytical"}, "flow") == "flow";
  const net::Cluster& k = s->cluster.cluster;
  s->links = {k.scale_up_Bps, k.scale_out_Bps, k.scale_up_latency_s, k.scale_out_latency_s, s->cluster.node->pcie_Bps};
  const int experts = s->model->moe->routed_experts;

  core::JsonReader d = root.object("deployment");
  auto& dep = s->deployment;
  dep.gpus_per_node = k.gpus_per_node;
  dep.gpus = k.nodes * k.gpus_per_node;
  if (dep.gpus > 2048)
    throw core::InputError(root.pointer_of("cluster") + "/nodes",
                           std::to_string(k.nodes) + " nodes (" + std::to_string(dep.gpus) +
                               " GPUs) is not allowed; a serving unit has at most 2048 GPUs");
  dep.sms = s->cluster.gpu->sm_count;
  dep.attention_tp = static_cast<int>(d.positive_integer("attention_tp", 4, 1024));
  if (dep.gpus % dep.attention_tp != 0)
    throw core::InputError(d.pointer_of("attention_tp"),
                           std::to_string(dep.attention_tp) + " does not divide the " + std::to_string(dep.gpus) +
                               " GPUs of the unit (/cluster/nodes x GPUs per node): TP x DP must equal them");
  dep.routed_gpus = static_cast<int>(d.positive_integer("routed_expert_gpus", dep.gpus, 1 << 20));
  if (dep.routed_gpus > dep.gpus || experts % dep.routed_gpus != 0)
    throw core::InputError(d.pointer_of("routed_expert_gpus"),
                           std::to_string(dep.routed_gpus) + " is not allowed; the " + std::to_string(experts) +
                               " routed experts must split evenly over at most the " + std::to_string(dep.gpus) +
                               " GPUs of the unit");
  dep.dedicated_shared = d.one_of("shared_expert", {"dedicated", "local"}, "dedicated") == "dedicated";
  if (dep.dedicated_shared && dep.shared_gpus() == 0)
    throw core::InputError(d.pointer_of("shared_expert"),
                           "'dedicated' needs GPUs beyond the " + std::to_string(dep.routed_gpus) +
                               " routed-expert GPUs; every GPU of the unit holds routed experts");
  dep.direct_comm = d.one_of("communication", {"direct", "forwarded"}, "direct") == "direct";
  if (!dep.direct_comm && (dep.routed_gpus != dep.gpus || dep.gpus % dep.gpus_per_node != 0))
    throw core::InputError(d.pointer_of("communication"),
                           "'forwarded' needs the routed experts on every GPU of the unit (routed_expert_gpus = " +
                               std::to_string(dep.gpus) + ")");
  dep.micro_batches = static_cast<int>(d.positive_integer("micro_batches", 2, 64));
  parse_overlap(d, dep);
  // Each step one CUDA graph replay, as DeepSeek's decode profile runs (notes/serving-profiles.md),
  // every kernel's launch cheaper; off by default (each kernel launched on its stream).
  if (d.boolean("cuda_graphs", false)) {
    dep.cuda_graph_max_batch = std::numeric_limits<int>::max();
    dep.cuda_graph_prefill = true;
  }
  s->links.pcie_Bps = d.positive_number("pcie_bandwidth_Bps", s->links.pcie_Bps);
  // A tenth of HBM for the CUDA context, communication buffers and fragmentation, as the serving
  // study's engines leave (vLLM's gpu_memory_utilization of 0.9): an assumption for DeepSeek's.
  s->reserve_bytes = d.non_negative_number("runtime_reserve_bytes", 0.1 * s->cluster.gpu->hbm_bytes);
  if (s->reserve_bytes >= s->cluster.gpu->hbm_bytes)
    throw core::InputError(d.pointer_of("runtime_reserve_bytes"), format_number(s->reserve_bytes) +
                                                                      " is not allowed; less than the GPU's " +
                                                                      gb(s->cluster.gpu->hbm_bytes) + " GB of HBM");
  d.finish();
  const auto compute =
      parse_compute(root.object("compute"), *s->cluster.gpu, 0,
                    {hw::GemmKind::kDense, hw::GemmKind::kGroupedContiguous, hw::GemmKind::kGroupedMasked});
  s->compute = compute;
  dep.comm_sms = compute.kernels.sms;

  auto& q = s->base;
  const std::string phase = root.has("prefill") ? "prefill" : "decode";
  s->prefill = phase == "prefill";
  if (root.has("prefill") && root.has("decode"))
    throw core::InputError(root.pointer_of("prefill"), "a scenario serves one phase; give either decode or prefill");
  core::JsonReader p = root.object(phase);
  if (s->prefill) {
    s->sequences = p.number_list("prompts", {1, 1e6, true, 0, true});
    s->lengths = p.number_list("prompt_tokens", {1, 1e6, true, 0, true});
  } else {
    s->sequences = p.number_list("sequences", {1, 1e7, true, 0, true});
    s->lengths = p.number_list("context_tokens", {0, 1e7, true, 0, true});
    q.kv_bytes_per_element = p.positive_number("kv_bytes_per_element", 2.0);
    q.kv_offload_fraction = p.non_negative_number("kv_offload_fraction", 0.0);
    if (q.kv_offload_fraction > 1)
      throw core::InputError(p.pointer_of("kv_offload_fraction"),
                             format_number(q.kv_offload_fraction) + " is not allowed; a share is at most 1");
    q.compute = p.boolean("compute", true);
    if (p.has("mtp_acceptance")) {
      const double a = p.non_negative_number("mtp_acceptance");
      if (a > 1)
        throw core::InputError(p.pointer_of("mtp_acceptance"),
                               format_number(a) + " is not allowed; an acceptance rate is at most 1");
      s->mtp_acceptance = a;
    }
  }
  q.seed = static_cast<std::uint64_t>(p.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  // The first point's MoE layer in a profiler's parts (with MTP: the MTP step's, as traced).
  s->layer_parts = p.boolean("layer_parts", false);
  q.affinity = parse_affinity(p, "uniform", 0.0);
  p.finish();
  for (std::size_t i = 0; i < s->sequences.size(); ++i)
    if (s->sequences[i] < dep.micro_batches * dep.attention_dp())
      throw core::InputError(
          p.pointer_of(s->prefill ? "prompts" : "sequences") + "/" + std::to_string(i),
          format_number(s->sequences[i]) + " is not allowed; each of the " + std::to_string(dep.micro_batches) +
              " micro-batches needs at least one per attention DP group (" + std::to_string(dep.attention_dp()) +
              "), so at least " + std::to_string(dep.micro_batches * dep.attention_dp()));
  // Every point must fit in the GPUs' memory: the largest is refused with its figures.
  for (std::size_t i = 0; i < s->sequences.size(); ++i)
    for (std::size_t j = 0; j < s->lengths.size(); ++j) {
      const PointMemory m = s->memory_at(s->sequences[i], s->lengths[j]);
      if (m.fits()) continue;
      const auto& plan = m.plan;
      throw core::InputError(
          p.pointer_of(s->prefill ? "prompts" : "sequences") + "/" + std::to_string(i),
          format_number(s->sequences[i]) + (s->prefill ? " prompts of " : " sequences at ") +
              format_number(s->lengths[j]) + " tokens (" +
              p.pointer_of(s->prefill ? "prompt_tokens" : "context_tokens") + "/" + std::to_string(j) +
              ") do not fit: each GPU needs " + gb(m.total_bytes()) + " GB (" + gb(plan.weight_bytes) + " weights + " +
              gb(plan.activation_bytes) + " activations + " + gb(plan.reserve_bytes) + " reserve + " + gb(m.kv_bytes) +
              " KV cache of " + format_number(m.sequences_per_rank) + (s->prefill ? " prompts" : " sequences") +
              " a DP rank, " + format_number(plan.kv_pages.bytes_gpu(1) / 1e3) + " KB a token) of its " +
              gb(plan.hbm_bytes) + " GB: use fewer sequences, shorter contexts, more GPUs or a larger attention TP");
    }
  return s;
}

}  // namespace studies
