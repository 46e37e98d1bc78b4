#include "studies/study_training_step.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "net/platform.hpp"
#include "studies/affinity_config.hpp"
#include "studies/compute_config.hpp"
#include "studies/fabric_config.hpp"
#include "studies/input_file.hpp"
#include "studies/model_config.hpp"
#include "workload/data_parallel_sync.hpp"
#include "workload/ep_comm.hpp"
#include "workload/profile_trace.hpp"
#include "workload/schedule_generators.hpp"
#include "workload/training_flops.hpp"
#include "workload/training_step.hpp"

namespace studies {

namespace {

std::string comm_kernels_note(const workload::CommKernels& k, const net::FabricSpec& f) {
  if (k.offloaded()) return "EP communication offloaded to hardware (no SMs), links at full rate";
  return std::to_string(k.sms) + " SMs in " + std::to_string(k.channels()) + " channels drive the EP all-to-all at " +
         format_number(k.ib_Bps(f.nic_Bps) / 1e9) + " GB/s IB and " + format_number(k.nvlink_Bps(f.nvlink_Bps) / 1e9) +
         " GB/s NVLink per GPU";
}

// The pipeline's trace, each rank's steps on their tracks, and below them the ops inside each
// step (named as DeepSeek's profile names them) on compute, weight-gradient and communication
// tracks.
std::string op_trace(const workload::TrainingStep& step, const workload::PipelineGraph& pg, const core::Timeline& timeline) {
  auto trace = nlohmann::json::parse(timeline.chrome_trace_json());
  auto& events = trace["traceEvents"];
  std::map<std::pair<int, std::string>, int> tracks;
  for (std::size_t rank = 0; rank < pg.step_tasks.size(); ++rank)
    for (std::size_t i = 0; i < pg.step_tasks[rank].size(); ++i) {
      const auto span = timeline.span(pg.step_tasks[rank][i]);
      for (const auto& op : step.step_ops(step.schedule().steps[rank][i])) {
        const int pid = static_cast<int>(rank);
        auto [it, added] = tracks.try_emplace({pid, op.stream}, 1000 + static_cast<int>(tracks.size()));
        if (added)
          events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", it->second}, {"args", {{"name", "ops: " + op.stream}}}});
        nlohmann::json e = {{"ph", "X"}, {"name", op.name}, {"cat", "op"}, {"pid", pid}, {"tid", it->second},
                            {"ts", (span.start_s + op.start_s) * 1e6}, {"dur", (op.end_s - op.start_s) * 1e6}};
        if (op.layer >= 0) e["args"] = {{"layer", op.layer}};
        events.push_back(std::move(e));
      }
    }
  return trace.dump();
}

class TrainingStepStudy : public Study {
 public:
  std::string label;
  const workload::Model* model = nullptr;
  const hw::Gpu* gpu = nullptr;
  workload::KernelEfficiency efficiency;
  bool fp8_gemms = true;
  workload::TrainingParallelism par;
  workload::TrainingBatch batch;
  workload::OptimizerSetup optimizer;
  workload::StageLayout layout;
  workload::CommKernels kernels;  // the SMs communication takes from compute, and what they drive
  net::FabricSpec fabric;
  int simulated_tokens_per_gpu = 256;
  std::uint64_t seed = 1;
  workload::AffinityDistribution affinity;
  bool flow = true;
  bool step_rows = true;  // Table 4's rows; "rows": "ops" keeps only the per-op rows of one MoE layer
  std::optional<workload::OpCalibration> calibration;  // measured ops that replace the model's
  std::string calibration_source;

  StudyResult run(const RunOptions& options) const override {
    const bool use_flow = flow && options.simulate;
    const workload::Roofline roofline(*gpu, efficiency, fp8_gemms);

    workload::EpCommSetup ep_setup;
    ep_setup.model = model;
    ep_setup.ep = par.ep;
    ep_setup.tokens_per_gpu = static_cast<int>(batch.micro_batch_tokens());
    ep_setup.simulated_tokens_per_gpu = simulated_tokens_per_gpu;
    ep_setup.seed = seed;
    ep_setup.affinity = affinity;
    ep_setup.fp8_dispatch = fp8_gemms;
    ep_setup.fabric = fabric;
    ep_setup.fabric.nic_Bps = kernels.ib_Bps(fabric.nic_Bps);  // each GPU sends through its own NIC
    ep_setup.fabric.nvlink_Bps = kernels.nvlink_Bps(fabric.nvlink_Bps);
    ep_setup.flow = use_flow;
    // Validation routes no token and sends nothing: the step's structure is checked, not timed.
    const auto ep = options.simulate ? workload::expert_parallel_comm(ep_setup) : workload::EpCommTimes{};

    const workload::TrainingStep step(*model, roofline, par, batch, layout, ep, gpu->sm_count, kernels.sms, calibration);
    const auto pg = step.pipeline_graph();
    net::Cluster pp_cluster;  // one GPU per stage, each on its own node: PP crosses IB
    pp_cluster.nodes = step.schedule().ranks;
    pp_cluster.gpus_per_node = 1;
    pp_cluster.gpu_flops_per_s = 1e15;
    pp_cluster.scale_up_Bps = fabric.nvlink_Bps;
    pp_cluster.scale_out_Bps = fabric.nic_Bps;
    pp_cluster.scale_out_latency_s = 2 * fabric.nic_latency_s + fabric.switch_link_latency_s;
    const core::Timeline timeline =
        use_flow ? core::simulate(net::StarPlatform(pp_cluster), pg.graph)
                 : core::evaluate_analytically(pg.graph, [&](const core::Flow& f) {
                     return f.bytes / pp_cluster.scale_out_Bps + pp_cluster.scale_out_latency_s;
                   });
    const auto b = step.breakdown(pg, timeline);

    workload::DataParallelSetup dp_setup{step.rank_parameters(), par, optimizer, fabric, use_flow};
    const auto dp = workload::data_parallel_times(dp_setup, roofline);

    const double pipeline_s = timeline.makespan_s();
    const double step_s = pipeline_s + dp.total();
    const double tokens = double(batch.sequences) * batch.sequence_tokens;
    const double tokens_per_day = tokens / step_s * 86400;
    auto tflops = [&](workload::AttentionMask mask) {
      return workload::training_flops_per_token(*model, batch.sequence_tokens, mask).total() * tokens /
             (double(par.gpus) * step_s) / 1e12;
    };
    const double tf_full = tflops(workload::AttentionMask::kFull);
    const double tf_causal = tflops(workload::AttentionMask::kCausal);
    const double peak_tf = gpu->bf16_dense_flops_per_s / 1e12;
    const double gpu_hours_per_trillion = double(par.gpus) * step_s / 3600 * (1e12 / tokens);

    StudyResult r;
    auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
      if (step_rows) r.rows.push_back({id, model->display_name, metric, unit, std::nullopt, v, Basis::kSimulated});
    };
    row("tokens_per_day", "tokens/day", "B", tokens_per_day / 1e9);
    row("step", "time/step", "s", step_s);
    row("forward", "1F", "s", b.forward_s);
    row("bubble", "bubble", "s", b.bubble_s);
    row("backward", "1B", "s", b.backward_s);
    row("weight", "1W", "s", b.weight_s);
    row("overlapped", "1F1B", "s", b.overlapped_s);
    row("optimizer", "opt", "s", dp.total());
    row("tflops_full", "TFLOPS (non-causal)", "TFLOPS", tf_full);
    row("tflops_causal", "TFLOPS (causal)", "TFLOPS", tf_causal);
    row("mfu_full", "MFU (non-causal)", "%", 100 * tf_full / peak_tf);
    row("mfu_causal", "MFU (causal)", "%", 100 * tf_causal / peak_tf);
    row("gpu_hours_per_trillion", "GPU hours per trillion tokens", "K", gpu_hours_per_trillion / 1e3);
    row("days_14_8t", "days for 14.8T tokens", "days", gpu_hours_per_trillion * 14.8 / par.gpus / 24);

    const auto& mid = step.stages()[step.stages().size() / 2];
    // One MoE layer of a middle stage as the overlapped F&B pair runs it, named as DeepSeek's
    // profile names its ops (compute already timed beside the communication kernels).
    if (!mid.layers.empty()) {
      const auto& layer = mid.layers.back();
      const std::vector<std::tuple<std::string, std::string, double>> ops = {
          {"attn(F)", "compute", layer.forward.attention_s},
          {"mlp(F)", "compute", layer.forward.mlp_s},
          {"dispatch(F)", "communication", layer.forward.dispatch_s},
          {"combine(F)", "communication", layer.forward.combine_s},
          {"attn(B)", "compute", layer.backward.attention_input_s},
          {"attn(W)", "compute", layer.backward.attention_weight_s},
          {"mlp(B)", "compute", layer.backward.mlp_input_s},
          {"mlp(W)", "compute", layer.backward.mlp_weight_s},
          {"dispatch(B)", "communication", layer.backward.dispatch_s},
          {"combine(B)", "communication", layer.backward.combine_s}};
      for (const auto& [op, stream, seconds] : ops)
        r.rows.push_back({"op/" + op, "MoE layer of stage " + std::to_string(step.stages().size() / 2),
                          op + " (" + stream + ")", "ms", std::nullopt, seconds * 1e3, Basis::kSimulated});
    }
    const int mid_stage = static_cast<int>(step.stages().size() / 2);
    workload::Step pair{{{workload::Pass::kForward, 0, 0, 0, mid_stage}, {workload::Pass::kBackward, 1, 0, 0, mid_stage}}};
    auto ms = [](double s) { return format_number(s * 1e3); };
    r.notes.push_back(
        label + ": " + std::to_string(par.gpus) + " " + gpu->name + " GPUs, PP " + std::to_string(par.pp) + " (" +
        step.schedule().kind + ", " + std::to_string(step.schedule().micro_batches) + " micro-batches of " +
        std::to_string(batch.micro_batch_sequences) + " x " + std::to_string(batch.sequence_tokens) + " tokens), EP " +
        std::to_string(par.ep) + ", ZeRO-1 DP " + std::to_string(par.dp()) + "; " + (use_flow ? "flow" : "analytical") +
        " mode. A middle stage (" + std::to_string(mid.layers.size()) + " layers): F " + ms(mid.forward_s()) + " ms, B* " +
        ms(mid.input_backward_s()) + " ms, W " + ms(mid.weight_s()) + " ms, F&B " + ms(step.step_seconds(pair)) +
        " ms. Per MoE layer and micro-batch: dispatch " + ms(ep.dispatch_forward_s) + " ms, combine " +
        ms(ep.combine_forward_s) + " ms (backward " + ms(ep.combine_backward_s) + " + " + ms(ep.dispatch_backward_s) +
        " ms); busiest expert GPU " + format_number(ep.expert_imbalance) + "x the mean; " + comm_kernels_note(kernels, fabric) +
        ". Breakdown of rank " +
        std::to_string(b.rank) + " (the most idle). opt = gradient reduce-scatter " + ms(dp.reduce_scatter_s) +
        " ms + optimizer " + ms(dp.optimizer_s) + " ms + weight all-gather " + ms(dp.all_gather_s) + " ms.");
    if (calibration)
      r.notes.push_back(label + ": calibrated with " + calibration_source + ": the measured attn(F), attn(B) and attn(W) of every layer and mlp(F), "
                        "mlp(B) and mlp(W) of every MoE layer, each scaled by the model from the profiled " +
                        format_number(calibration->micro_batch_tokens) + "-token micro-batch with " +
                        std::to_string(calibration->communication_sms) + " communication SMs to this step's " +
                        format_number(batch.micro_batch_tokens()) + " tokens; the dense layers' FFN, the embedding, head and MTP projection, "
                        "the EP, PP and DP traffic, the schedule and the optimizer from the model.");
    if (options.trace) r.trace_json = op_trace(step, pg, timeline);
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_training_step_study(core::JsonReader& root) {
  auto s = std::make_unique<TrainingStepStudy>();
  s->model = &read_model(root);
  if (!s->model->moe) throw core::InputError(root.pointer_of("model"), "'" + s->model->name + "' is dense; this study trains an MoE model");
  s->gpu = &hw::gpu_by_name(root.one_of("gpu", hw::gpu_names(), "H800"), root.pointer_of("gpu"));
  s->flow = root.one_of("mode", {"flow", "analytical"}, "flow") == "flow";
  s->step_rows = root.one_of("rows", {"all", "ops"}, "all") == "all";
  if (auto file = root.optional_string("calibration")) {
    const std::string path = resolve_input_file(*file);
    const auto profile = workload::read_calibration(path);
    const std::string& gpu_name = s->gpu->name;
    if (profile.device.find(gpu_name) == std::string::npos)
      throw core::InputError(path + ": /device", "'" + profile.device + "' is not allowed; the scenario runs on " + gpu_name +
                                                     " (a calibration holds for the GPU it was taken on)");
    if (profile.workload.micro_batch_tokens <= 0 || profile.workload.communication_sms < 0)
      throw core::InputError(path + ": /workload", "needs micro_batch_tokens and communication_sms (calibrate --micro-batch-tokens N "
                                                   "--communication-sms N) to scale the measured ops");
    workload::OpCalibration cal;
    cal.micro_batch_tokens = profile.workload.micro_batch_tokens;
    cal.communication_sms = profile.workload.communication_sms;
    for (const auto& op : workload::OpCalibration::op_names()) {
      const auto it = profile.ops.find(op);
      if (it == profile.ops.end() || it->second.busy_ms <= 0)
        throw core::InputError(path + ": /ops/" + op, "missing; a training step's calibration needs attn(F), mlp(F), attn(B), attn(W), mlp(B) and mlp(W)");
      cal.op_s[op] = it->second.busy_ms / 1e3;
    }
    if (cal.communication_sms >= s->gpu->sm_count)
      throw core::InputError(path + ": /workload/communication_sms", std::to_string(cal.communication_sms) + " is not allowed; the GPU has " +
                                                                       std::to_string(s->gpu->sm_count) + " SMs");
    s->calibration = cal;
    s->calibration_source = *file + " (" + profile.device + ")";
  }

  core::JsonReader f = root.object("fabric");
  s->fabric.kind = f.one_of("kind", {"mpft", "mrft"}) == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  read_fabric_fields(f, s->fabric, true);
  f.finish();
  net::check_fabric(s->fabric, f.pointer() + "/");
  if (s->flow && s->fabric.nodes * s->fabric.gpus_per_node > 16384)
    throw core::InputError(f.pointer_of("nodes"), std::to_string(s->fabric.nodes) + " nodes is more than flow mode simulates (16,384 GPUs); "
                                            "set /mode to \"analytical\"");
  auto& par = s->par;
  par.gpus_per_node = s->fabric.gpus_per_node;
  par.gpus = s->fabric.nodes * par.gpus_per_node;
  s->label = root.optional_string("label").value_or(s->fabric.kind == net::FabricKind::kMultiPlane ? "MPFT" : "MRFT");

  core::JsonReader p = root.object("parallel");
  par.pp = static_cast<int>(p.positive_integer("pp", 1024));
  par.ep = static_cast<int>(p.positive_integer("ep", 1024));
  par.schedule = p.one_of("schedule", {"dualpipe", "1f1b", "zb1p"}, "dualpipe");
  const bool mtp = p.boolean("mtp", s->model->mtp_modules > 0);
  const int experts = s->model->moe->routed_experts;
  const int stage_gpus = par.gpus / par.pp;
  if (par.gpus % par.pp != 0 || stage_gpus % par.gpus_per_node != 0)
    throw core::InputError(p.pointer_of("pp"), std::to_string(par.pp) + " stages do not split the " + std::to_string(par.gpus) +
                                             " GPUs (/fabric/nodes x gpus_per_node) into whole nodes per stage");
  if (par.ep % par.gpus_per_node != 0 || stage_gpus % par.ep != 0)
    throw core::InputError(p.pointer_of("ep"), std::to_string(par.ep) + " is not allowed; an EP group is whole nodes and divides "
                                             "the " + std::to_string(stage_gpus) + " GPUs of a stage (PP x EP x expert DP = GPUs)");
  if (experts % par.ep != 0)
    throw core::InputError(p.pointer_of("ep"), std::to_string(par.ep) + " does not divide the " + std::to_string(experts) + " routed experts");

  core::JsonReader bt = root.object("batch");
  auto& batch = s->batch;
  batch.sequences = static_cast<int>(bt.positive_integer("sequences", 1 << 24));
  batch.sequence_tokens = static_cast<int>(bt.positive_integer("sequence_tokens", 1 << 20));
  batch.micro_batch_sequences = static_cast<int>(bt.positive_integer("micro_batch_sequences", 1, 1 << 16));
  bt.finish();
  const long long per_replica = batch.sequences / par.dp();
  if (batch.sequences % par.dp() != 0 || per_replica % batch.micro_batch_sequences != 0)
    throw core::InputError(bt.pointer_of("sequences"),
                           std::to_string(batch.sequences) + " sequences do not split into " + std::to_string(par.dp()) +
                         " data-parallel replicas of whole micro-batches of " + std::to_string(batch.micro_batch_sequences));
  workload::check_schedule_request({par.schedule, par.pp, per_replica / batch.micro_batch_sequences, 1}, p.pointer() + "/");
  if (p.has("layers_per_stage")) {
    const auto sizes = p.number_list("layers_per_stage", {0, 1e6, true, 0});
    if (static_cast<int>(sizes.size()) != par.pp)
      throw core::InputError(p.pointer_of("layers_per_stage"), std::to_string(sizes.size()) + " entries is not allowed; one per stage (" +
                                                             std::to_string(par.pp) + ")");
    s->layout = workload::explicit_stage_layout(*s->model, std::vector<int>(sizes.begin(), sizes.end()), mtp,
                                                p.pointer_of("layers_per_stage"));
  } else {
    s->layout = workload::balanced_stage_layout(*s->model, par.pp, mtp, batch.sequence_tokens, p.pointer_of("pp"));
  }
  p.finish();

  const auto compute = parse_compute(root.object("compute"), *s->gpu, 20);
  s->fp8_gemms = compute.fp8_gemms;
  s->efficiency = compute.efficiency;
  s->kernels = compute.kernels;

  if (auto m = root.optional_object("moe")) {
    s->simulated_tokens_per_gpu = static_cast<int>(m->positive_integer("simulated_tokens_per_gpu", 256, 1 << 16));
    s->seed = static_cast<std::uint64_t>(m->positive_integer("seed", 1, core::JsonReader::kMaxInteger));
    s->affinity = parse_affinity(*m, "uniform", 0.0);
    if (static_cast<long long>(s->simulated_tokens_per_gpu) * par.ep > (1 << 18))
      throw core::InputError(m->pointer_of("simulated_tokens_per_gpu"),
                             std::to_string(s->simulated_tokens_per_gpu) + " is not allowed; x EP " + std::to_string(par.ep) +
                           " it routes more than 262,144 tokens (each with a score per expert held in memory)");
    m->finish();
  }
  if (auto o = root.optional_object("optimizer")) {
    s->optimizer.gradient_bytes = o->positive_number("gradient_bytes", 4);
    s->optimizer.parameter_bytes = o->positive_number("parameter_bytes", 2);
    s->optimizer.state_bytes_per_parameter = o->positive_number("state_bytes_per_parameter", 22);
    o->finish();
  }
  return s;
}

}  // namespace studies
