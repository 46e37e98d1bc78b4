#include "studies/training/study_training_step.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "hw/gpu.hpp"
#include "net/fabric.hpp"
#include "studies/config/affinity_config.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/config/fabric_config.hpp"
#include "studies/config/input_file.hpp"
#include "studies/config/model_config.hpp"
#include "studies/config/straggler_config.hpp"
#include "studies/training/step_on_scale_fabric.hpp"
#include "workload/model/training_flops.hpp"
#include "workload/moe/ep_comm.hpp"
#include "workload/pipeline/schedule_registry.hpp"
#include "workload/profile/profile_trace.hpp"
#include "workload/training/cluster_step.hpp"
#include "workload/training/data_parallel_sync.hpp"
#include "workload/training/training_memory.hpp"
#include "workload/training/training_step.hpp"

namespace studies {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

std::string comm_kernels_note(const workload::CommKernels& k, const net::FabricSpec& f) {
  if (k.offloaded()) return "EP communication offloaded to hardware (no SMs), links at full rate";
  return std::to_string(k.sms) + " SMs in " + std::to_string(k.channels()) + " channels drive the EP all-to-all at " +
         format_number(k.ib_Bps(f.nic_Bps) / 1e9) + " GB/s IB and " + format_number(k.nvlink_Bps(f.nvlink_Bps) / 1e9) +
         " GB/s NVLink per GPU";
}

// The pipeline's trace, each rank's steps on their tracks, and below them the ops inside each
// step (named as DeepSeek's profile names them) on compute, weight-gradient and communication
// tracks; with `kernels`, under each op the kernels the model times inside it, one after the
// other, stretched to the op's span where the op runs slower than they add up to. Where the run
// itself ran the ops (`ops_in_run`: the all-to-alls in the step's run), its tasks are the ops,
// and each compute op's kernels go under the task that ran it.
std::string op_trace(const workload::TrainingStep& step, const workload::PipelineSteps& pg,
                     const std::vector<int>& gpus, const core::Timeline& timeline, bool kernels, bool ops_in_run) {
  auto trace = nlohmann::json::parse(timeline.chrome_trace_json(gpus));
  auto& events = trace["traceEvents"];
  std::map<std::pair<int, std::string>, int> tracks;
  auto track = [&](int pid, const std::string& name) {
    auto [it, added] = tracks.try_emplace({pid, name}, 1000 + static_cast<int>(tracks.size()));
    if (added)
      events.push_back(
          {{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", it->second}, {"args", {{"name", name}}}});
    return it->second;
  };
  const auto& tasks = timeline.graph().tasks();
  for (std::size_t rank = 0; rank < pg.step_tasks.size(); ++rank)
    for (std::size_t i = 0; i < pg.step_tasks[rank].size(); ++i) {
      const auto span = pg.span(timeline, static_cast<int>(rank), i);
      const int pid = gpus[rank];
      // In the run, the GPU's compute tasks of the step by op name, in the order they were added
      // (its ops' order); an all-to-all's hold is a delay, on a stream of its own.
      std::map<std::string, std::vector<core::TaskId>> ran;
      if (ops_in_run)
        for (core::TaskId id = pg.step_tasks[rank][i]; id <= pg.step_ends[rank][i]; ++id) {
          const auto& t = tasks[static_cast<std::size_t>(id)];
          if (t.kind == core::TaskKind::kCompute && t.rank == pid) ran[timeline.graph().name(t)].push_back(id);
        }
      std::map<std::string, std::size_t> next;
      for (const auto& op : step.step_ops(step.schedule().steps[rank][i])) {
        double start_us = (span.start_s + op.start_s) * 1e6, dur_us = (op.end_s - op.start_s) * 1e6;
        if (ops_in_run) {
          if (!op.kernels) continue;  // the run's own task is the op
          const auto& ids = ran[op.name];
          const std::size_t k = next[op.name]++;
          if (k >= ids.size())
            throw std::logic_error("the run has no task for " + op.name + " in step " + std::to_string(i));
          const auto& s = timeline.span(ids[k]);
          start_us = s.start_s * 1e6;
          dur_us = (s.end_s - s.start_s) * 1e6;
        }
        nlohmann::json e = {
            {"ph", "X"},      {"name", op.name}, {"cat", "op"}, {"pid", pid}, {"tid", track(pid, "ops: " + op.stream)},
            {"ts", start_us}, {"dur", dur_us}};
        if (op.layer >= 0) e["args"] = {{"layer", op.layer}};
        if (!ops_in_run) events.push_back(std::move(e));
        if (!kernels || !op.kernels) continue;
        double sum_s = 0;
        for (const auto& k : *op.kernels) sum_s += k.seconds;
        const double stretch = sum_s > 0 ? dur_us / (sum_s * 1e6) : 0;
        double t_us = start_us;
        for (const auto& k : *op.kernels) {
          events.push_back({{"ph", "X"},
                            {"name", k.name},
                            {"cat", "kernel"},
                            {"pid", pid},
                            {"tid", track(pid, "kernels: " + op.stream)},
                            {"ts", t_us},
                            {"dur", k.seconds * 1e6 * stretch},
                            {"args", {{"op", op.name}, {"layer", op.layer}}}});
          t_us += k.seconds * 1e6 * stretch;
        }
      }
    }
  return trace.dump();
}

// Which of attention's dimensions an EP group spans (MoE parallel folding), and the experts' cut.
std::string ep_text(const workload::TrainingParallelism& par) {
  const auto ep_group = par.expert_grid().group_of(0, {"ep"});
  const workload::RankGrid attention = par.attention_grid();
  std::vector<std::string> spans;
  for (const auto& [dim, name] : {std::pair{"tp", "TP"}, {"cp", "CP"}, {"dp", "DP"}}) {
    const auto g = attention.group_of(0, {dim});
    const auto shared = std::count_if(g.begin(), g.end(),
                                      [&](int r) { return std::binary_search(ep_group.begin(), ep_group.end(), r); });
    if (shared > 1) spans.push_back(name);
  }
  std::string text = par.ep > 1 && !spans.empty() ? " over " + joined(spans, " x ") + " ranks" : "";
  if (par.etp > 1) text += ", experts cut " + std::to_string(par.etp) + " ways";
  return text;
}

class TrainingStepStudy : public Study {
 public:
  // Each straggler case's step on the fabric against the healthy one's, and how long each
  // collective waited for its last member, and for whom.
  void add_straggler_rows(const workload::ClusterStepGraph& cluster, const workload::TrainingStep& step,
                          const net::FabricSpec& whole, double healthy_step_s, const core::Timeline& healthy,
                          StudyResult& r) const {
    auto where = [&](int gpu) {  // "node 17 / gpu 3 (pipeline 5, rank 2)"
      for (std::size_t p = 0; p < cluster.pipelines.size(); ++p)
        for (std::size_t st = 0; st < cluster.pipelines[p].size(); ++st)
          if (cluster.pipelines[p][st] == gpu)
            return gpu_name(whole, gpu) + " (pipeline " + std::to_string(p) + ", rank " + std::to_string(st) + ")";
      return gpu_name(whole, gpu);
    };
    const std::string healthy_label = "no straggler";
    r.rows.push_back(
        {"healthy/step", healthy_label, "time/step", "s", std::nullopt, healthy_step_s, Basis::kSimulated});
    for (const auto& w : workload::collective_waits(cluster.collectives, healthy))
      r.rows.push_back({"healthy/wait/" + w.name, healthy_label, "wait for the last member at " + w.name + ", mean",
                        "ms", std::nullopt, w.mean_s * 1e3, Basis::kSimulated});
    const auto& tasks = cluster.graph.tasks();
    for (const auto& c : straggler_cases) {
      net::FabricPlatform platform(whole);
      platform.set_compute_slowdowns(c.slowdowns);
      const core::Timeline timeline = core::simulate(platform, cluster.graph);
      const double step_s = workload::cluster_step_result(cluster, step, timeline).step_s;
      std::vector<int> slow;
      for (const auto& d : c.slowdowns.all()) slow.push_back(d.rank);
      std::sort(slow.begin(), slow.end());
      // Which GPUs' compute the step waited on: the compute along its critical path, by GPU.
      std::map<int, double> on_path_s;
      for (core::TaskId id : timeline.critical_path()) {
        const auto& t = tasks[static_cast<std::size_t>(id)];
        if (t.kind == core::TaskKind::kCompute)
          on_path_s[t.rank] += timeline.span(id).end_s - timeline.span(id).start_s;
      }
      double slow_on_path_s = 0, path_s = 0;
      for (const auto& [gpu, seconds] : on_path_s) {
        path_s += seconds;
        if (std::binary_search(slow.begin(), slow.end(), gpu)) slow_on_path_s += seconds;
      }
      const std::string id = "case/" + c.id;
      r.rows.push_back({id + "/step", c.label, "time/step", "s", std::nullopt, step_s, Basis::kSimulated});
      r.rows.push_back({id + "/wait", c.label, "the step's wait for stragglers", "s", std::nullopt,
                        step_s - healthy_step_s, Basis::kSimulated});
      r.rows.push_back({id + "/slowdown", c.label, "step slowdown", "%", std::nullopt,
                        100 * (step_s / healthy_step_s - 1), Basis::kSimulated});
      r.rows.push_back({id + "/critical_path", c.label, "stragglers' compute on the critical path", "s", std::nullopt,
                        slow_on_path_s, Basis::kSimulated});
      const auto waits = workload::collective_waits(cluster.collectives, timeline, slow);
      for (const auto& w : waits)
        if (w.gated_by_slow > 0)
          r.rows.push_back({id + "/wait/" + w.name, c.label, "wait for a straggler at " + w.name + ", mean", "ms",
                            std::nullopt, w.slow_mean_s * 1e3, Basis::kSimulated});

      std::string note = c.label + ": ";
      const auto& all = c.slowdowns.all();
      for (std::size_t i = 0; i < all.size() && i < 4; ++i)
        note += (i ? ", " : "") + where(all[i].rank) + " " + format_number(all[i].factor) + "x from " +
                format_number(all[i].from_s) + " s";
      if (all.size() > 4) note += " and " + std::to_string(all.size() - 4) + " more";
      note += ". The step takes " + format_number(step_s) + " s against " + format_number(healthy_step_s) +
              " s; its critical path holds " + format_number(path_s) + " s of compute, " +
              format_number(slow_on_path_s) + " s of it the stragglers'";
      std::vector<std::pair<double, int>> top;
      for (const auto& [gpu, seconds] : on_path_s) top.push_back({-seconds, gpu});
      std::sort(top.begin(), top.end());
      for (std::size_t i = 0; i < top.size() && i < 3; ++i)
        note += (i ? ", " : " (most: ") + where(top[i].second) + " " + format_number(-top[i].first) + " s" +
                (i + 1 == std::min<std::size_t>(top.size(), 3) ? ")" : "");
      note += ".";
      for (const auto& w : waits)
        if (w.gated_by_slow > 0)
          note += " " + w.name + ": a straggler came last at " + std::to_string(w.gated_by_slow) + " of " +
                  std::to_string(w.instances) + " instances, " + format_number(w.slow_mean_s * 1e3) +
                  " ms after the first member on average (all instances: " + format_number(w.mean_s * 1e3) +
                  " ms, at most " + format_number(w.max_s * 1e3) + " ms).";
      r.notes.push_back(note);
    }
  }

  std::string label;
  const workload::Model* model = nullptr;
  const hw::Gpu* gpu = nullptr;
  ComputeConfig compute;  // kernel efficiencies, the recipe's precision, the GEMM library, communication SMs
  workload::TrainingParallelism par;
  workload::TrainingBatch batch;
  workload::OptimizerSetup optimizer;
  workload::StageLayout layout;
  net::FabricSpec fabric;
  int simulated_tokens_per_gpu = 256;
  std::uint64_t seed = 1;
  workload::AffinityDistribution affinity;
  bool flow = true;
  // Flow mode: the step's all-to-alls op by op in its run (their flows evened per group and op, or
  // each as routed), else timed per micro-batch.
  enum class EpInStepMode { kNo, kEven, kPerFlow } ep_in_step = EpInStepMode::kNo;
  // Table 4's rows and one layer's ops ("all"); the ops alone, with their kernel time by class
  // ("ops"); a middle stage's overlapped F&B pair alone ("pair"); or the straggler cases' rows
  // alone ("stragglers").
  enum class Rows { kAll, kOps, kPair, kStragglers } rows = Rows::kAll;
  // Flow mode: the step again with GPUs that compute slower, each case against the healthy run.
  struct StragglerCase {
    std::string id, label;
    core::ComputeSlowdowns slowdowns;
  };
  std::vector<StragglerCase> straggler_cases;
  std::optional<workload::OpCalibration> calibration;  // measured ops that replace the model's
  std::string calibration_source;
  // Analytical mode: the step's traffic on a full-size topology by classes of flows, its
  // slowdowns applied to the times the step gives that traffic (step_on_scale_fabric.hpp).
  std::optional<ScaleStepNetwork> scale_network;
  std::string scale_network_pointer;
  // What the runtime holds besides the model's tensors: the CUDA context (~0.5 GB), NCCL's and
  // DeepEP's buffers (~1-2 GB) and the caching allocator's slack; an assumption, overridable.
  double reserved_bytes = 3e9;

  // The step alone: its time and where it goes (1F, 1B, 1W, 1F1B, bubble, optimizer), without
  // the straggler cases.
  std::optional<StudyResult> step(const RunOptions& options) const override {
    TrainingStepStudy one = *this;
    one.straggler_cases.clear();
    one.rows = Rows::kAll;
    StudyResult all = one.run(options);
    StudyResult r;
    r.warnings = all.warnings;
    for (const char* id :
         {"step", "forward", "backward", "weight", "overlapped", "bubble", "optimizer", "tokens_per_s", "mfu_causal"})
      for (const auto& row : all.rows)
        if (row.id == id) r.rows.push_back(row);
    return r;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult stragglers;  // the straggler cases' rows and notes, after the step's
    const bool use_flow = flow && options.simulate;
    const workload::Roofline roofline = compute.roofline(*gpu);

    workload::EpCommTimes ep;
    std::optional<workload::EpTraffic> ep_traffic;  // flow mode: what the step's run sends
    if (model->moe && par.ep > 1 && options.simulate) {
      // Validation routes no token and sends nothing: the step's structure is checked, not timed.
      workload::EpCommSetup ep_setup;
      ep_setup.model = model;
      ep_setup.ep = par.ep;
      // Each GPU dispatches its sequence-parallel shard of its CP shard; experts cut over TP take
      // the TP group's tokens on every shard.
      ep_setup.tokens_per_gpu = static_cast<int>(batch.micro_batch_tokens() * par.etp / (par.tp * par.cp));
      ep_setup.simulated_tokens_per_gpu = simulated_tokens_per_gpu;
      ep_setup.seed = seed;
      ep_setup.affinity = affinity;
      ep_setup.fp8_dispatch = compute.fp8_gemms;
      ep_setup.fabric = fabric;
      ep_setup.fabric.faults.clear();  // the EP phases timed on their own, healthy; the step's run has the faults
      ep_setup.fabric.nic_Bps = compute.kernels.ib_Bps(fabric.nic_Bps);  // each GPU sends through its own NIC
      ep_setup.fabric.nvlink_Bps = compute.kernels.nvlink_Bps(fabric.nvlink_Bps);
      ep_setup.flow = use_flow;
      // Flow mode: every EP group of the cluster at once on the whole fabric, where groups that
      // share leaves and spines contend; analytically, one group on a fabric of its own.
      if (use_flow) {
        ep_setup.groups = par.expert_grid().groups({"ep"});
      } else {
        ep_setup.fabric.gpus_per_node = par.expert_members_per_node("ep");  // the EP group's GPUs that share a node
      }
      ep_traffic = workload::expert_parallel_traffic(ep_setup);
      ep = workload::expert_parallel_comm(ep_setup, *ep_traffic);
    }

    // The full-size fabric's contention, as a slowdown of each traffic's analytical time.
    std::optional<ScaleStepSlowdowns> slowdowns;
    if (scale_network && options.simulate) {
      ScaleStepTraffic traffic;
      traffic.gpus = par.gpus;
      traffic.gpus_per_node = fabric.gpus_per_node;
      if (model->moe && par.ep > 1) {
        traffic.ep_gpus = par.ep;  // consecutive GPUs (the parse checked)
        traffic.ep_bytes = ep.ib_bytes_per_gpu_dispatch;
      }
      // The pipeline's sends across nodes (a stage inside a node sends over NVLink).
      traffic.stage_gpus = par.pp > 1 && par.members_per_node("pp") == 1 ? par.pipeline_stride() : 0;
      traffic.pp_bytes = workload::pp_transfer_bytes(*model, batch, par);
      slowdowns = scale_step_slowdowns(*scale_network, traffic, scale_network_pointer);
      for (double* t : {&ep.dispatch_forward_s, &ep.combine_forward_s, &ep.combine_backward_s, &ep.dispatch_backward_s})
        *t *= slowdowns->ep;
    }
    // Within a node, TP's collectives as the node's NCCL all-reduce was measured, where it was.
    const auto links = workload::group_links(par, fabric.nvlink_Bps, fabric.nic_Bps,
                                             fabric.node.empty() ? nullptr : hw::all_reduce_for(fabric.node));
    // The kernels of each op are kept for a kernel trace, and for the per-class rows of "rows": "ops".
    const workload::TrainingStep step(*model, roofline, par, batch, layout, ep, gpu->sm_count, compute.kernels.sms,
                                      calibration, links, options.trace_kernels || rows == Rows::kOps);
    // Flow mode: every pipeline of the cluster on the fabric, its PP sends routed, with each
    // pipeline rank's data-parallel synchronisation in the same run. Analytically, one pipeline
    // with PP at one link's rate, then the synchronisation's closed forms.
    std::optional<workload::ClusterStepGraph> cluster;
    workload::PipelineGraph pg;
    std::optional<core::Timeline> timeline;
    workload::DataParallelTimes dp;
    double pipeline_s = 0, step_s = 0;
    int dp_rank = 0;               // the pipeline rank whose synchronisation the step waits for
    std::vector<int> traced_gpus;  // the pipeline the breakdown and the trace show
    if (use_flow) {
      std::optional<workload::EpInStep> in_step;
      if (ep_in_step != EpInStepMode::kNo && ep_traffic)
        in_step.emplace(workload::EpInStep{*ep_traffic, ep, ep_in_step == EpInStepMode::kPerFlow});
      cluster.emplace(workload::cluster_step_graph(step, optimizer, roofline, in_step ? &*in_step : nullptr));
      net::FabricSpec whole = fabric;
      whole.nodes = par.gpus / fabric.gpus_per_node;
      timeline.emplace(core::simulate(net::FabricPlatform(whole), cluster->graph));
      const auto run = workload::cluster_step_result(*cluster, step, *timeline);
      pg = workload::pipeline_view(*cluster, run.pipeline);
      traced_gpus = cluster->pipelines[static_cast<std::size_t>(run.pipeline)];
      dp = run.dp;
      dp_rank = run.dp_rank;
      pipeline_s = run.pipeline_s;
      step_s = run.step_s;
      if (!straggler_cases.empty()) add_straggler_rows(*cluster, step, whole, step_s, *timeline, stragglers);
    } else {
      for (const auto& c : straggler_cases)  // validation: the rows, unrun
        for (const auto& [id, metric, unit] : {std::tuple{"step", "time/step", "s"},
                                               {"wait", "the step's wait for stragglers", "s"},
                                               {"slowdown", "step slowdown", "%"},
                                               {"critical_path", "stragglers' compute on the critical path", "s"}})
          stragglers.rows.push_back(
              {"case/" + c.id + "/" + id, c.label, metric, unit, std::nullopt, kNotRun, Basis::kSimulated});
      pg = step.pipeline_graph();
      const double pp_latency_s = 2 * fabric.nic_latency_s + fabric.switch_link_latency_s;
      const double pp_Bps = par.members_per_node("pp") > 1 ? fabric.nvlink_Bps : fabric.nic_Bps;
      // Sends across nodes slowed by the full-size fabric where it is simulated.
      const double pp_slowdown = slowdowns && par.members_per_node("pp") == 1 ? slowdowns->pp : 1.0;
      timeline.emplace(core::evaluate_analytically(
          pg.graph, [&](const core::Flow& f) { return f.bytes / pp_Bps * pp_slowdown + pp_latency_s; }));
      for (int r = 0; r < step.schedule().ranks; ++r) traced_gpus.push_back(r);
      workload::DataParallelSetup dp_setup{step.rank_parameters(), par, optimizer, fabric, false};
      dp = workload::data_parallel_times(dp_setup, roofline);
      if (slowdowns) {
        dp.reduce_scatter_s *= slowdowns->dp;
        dp.all_gather_s *= slowdowns->dp;
      }
      pipeline_s = timeline->makespan_s();
      const auto& first = step.stages().front();
      step_s = pipeline_s + workload::exposed_data_parallel_s(dp, par.zero, par.dp_comm_overlap, first.forward_s(),
                                                              first.input_backward_s() + first.weight_s());
    }
    const auto b = step.breakdown(pg, *timeline);
    const double dp_s = step_s - pipeline_s;
    const double tokens = double(batch.global_sequences) * batch.sequence_tokens;
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
      if (rows == Rows::kAll)
        r.rows.push_back({id, model->display_name, metric, unit, std::nullopt, v, Basis::kSimulated});
    };
    row("tokens_per_day", "tokens/day", "B", tokens_per_day / 1e9);
    row("step", "time/step", "s", step_s);
    row("forward", "1F", "s", b.forward_s);
    row("bubble", "bubble", "s", b.bubble_s);
    row("backward", "1B", "s", b.backward_s);
    row("weight", "1W", "s", b.weight_s);
    row("overlapped", "1F1B", "s", b.overlapped_s);
    row("optimizer", "opt", "s", dp_s);
    row("tflops_full", "TFLOPS (non-causal)", "TFLOPS", tf_full);
    row("tflops_causal", "TFLOPS (causal)", "TFLOPS", tf_causal);
    row("mfu_full", "MFU (non-causal)", "%", 100 * tf_full / peak_tf);
    row("mfu_causal", "MFU (causal)", "%", 100 * tf_causal / peak_tf);
    row("gpu_hours_per_trillion", "GPU hours per trillion tokens", "K", gpu_hours_per_trillion / 1e3);
    row("days_14_8t", "days for 14.8T tokens", "days", gpu_hours_per_trillion * 14.8 / par.gpus / 24);
    row("tokens_per_s", "tokens/s", "M", tokens / step_s / 1e6);

    // The bubble the schedule would have over equal stages, each a middle stage: where the step's
    // departs from it, its stages differ (the note says by how much).
    const int mid_stage = static_cast<int>(step.stages().size() / 2);
    const auto& mid = step.stages()[static_cast<std::size_t>(mid_stage)];
    const workload::Step pair{
        {{workload::Pass::kForward, 0, 0, 0, mid_stage}, {workload::Pass::kBackward, 1, 0, 0, mid_stage}}};
    const workload::PassTimes balanced{mid.forward_s(), mid.input_backward_s() + mid.weight_s(), mid.weight_s(),
                                       step.step_seconds(pair)};
    const auto bubble_formula_s = workload::balanced_bubble_s(step.schedule().kind, step.schedule().ranks, balanced);
    if (bubble_formula_s && rows == Rows::kAll)
      r.rows.push_back({"bubble_equal_stages", model->display_name,
                        "bubble over equal stages (closed form at a middle stage's chunks)", "s", std::nullopt,
                        *bubble_formula_s, Basis::kFormula});

    const auto mem = workload::training_memory(step, optimizer, compute.fp8_gemms, reserved_bytes);
    const double hbm = gpu->hbm_bytes;
    row("memory_weights", "memory: weights", "GB", mem.weights_B / 1e9);
    row("memory_gradients", "memory: gradients", "GB", mem.gradients_B / 1e9);
    row("memory_optimizer", "memory: optimizer states", "GB", mem.optimizer_B / 1e9);
    row("memory_activations",
        "memory: activations (" + std::to_string(mem.peak_micro_batches) + " micro-batches in flight)", "GB",
        mem.activations_B / 1e9);
    row("memory_reserved", "memory: runtime and buffers", "GB", mem.reserved_B / 1e9);
    row("memory_total", "memory per GPU", "GB", mem.total_B() / 1e9);
    row("memory_free", "HBM left", "GB", (hbm - mem.total_B()) / 1e9);
    if (mem.total_B() > hbm)
      r.warnings.push_back(label + ": the layout does not fit: " + format_number(mem.total_B() / 1e9) +
                           " GB per GPU against " + format_number(hbm / 1e9) + " GB of HBM on " + gpu->name);

    const std::string layer_kind = model->moe ? "MoE" : "dense";
    // One layer of a middle stage as the overlapped F&B pair (or the chunk alone) runs it, named
    // as DeepSeek's profile names its ops (compute already timed beside the communication kernels).
    if (!mid.layers.empty()) {
      const auto& layer = mid.layers.back();
      std::vector<std::tuple<std::string, std::string, double>> ops = {
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
      if (!model->moe)  // a dense layer has no all-to-all
        ops.erase(
            std::remove_if(ops.begin(), ops.end(), [](const auto& op) { return std::get<1>(op) == "communication"; }),
            ops.end());
      // Exposed TP and CP communication, of which the attention and MLP ops above hold.
      if (par.tp > 1) {
        ops.push_back({"tp(F)", "compute, of which", layer.tp_forward_s});
        ops.push_back({"tp(B)", "compute, of which", layer.tp_backward_s});
      }
      if (par.cp > 1) {
        ops.push_back({"cp(F)", "compute, of which", layer.cp_forward_s});
        ops.push_back({"cp(B)", "compute, of which", layer.cp_backward_s});
      }
      const std::string layer_label = layer_kind + " layer of stage " + std::to_string(step.stages().size() / 2);
      if (rows == Rows::kAll || rows == Rows::kOps)
        for (const auto& [op, stream, seconds] : ops)
          r.rows.push_back({"op/" + op, layer_label, op + " (" + stream + ")", "ms", std::nullopt, seconds * 1e3,
                            Basis::kSimulated});
      // Where the compute ops' time goes, by what their kernels do (as `codesim calibrate` classes
      // a profile's kernels by name).
      if (rows == Rows::kOps && !layer.kernels.empty()) {
        using workload::KernelClass;
        std::map<KernelClass, double> by_class;
        for (const char* op : {"attn(F)", "mlp(F)", "attn(B)", "attn(W)", "mlp(B)", "mlp(W)"})
          if (auto it = layer.kernels.find(op); it != layer.kernels.end())
            for (const auto& k : it->second) by_class[k.kind] += k.seconds;
        for (const auto& [kind, id, metric] : {std::tuple{KernelClass::kGemm, "gemm", "GEMM kernels"},
                                               std::tuple{KernelClass::kAttention, "attention", "attention kernels"},
                                               std::tuple{KernelClass::kOther, "memory", "memory-bound kernels"}})
          r.rows.push_back({std::string("class/") + id, layer_label, std::string(metric) + ", six compute ops", "ms",
                            std::nullopt, by_class[kind] * 1e3, Basis::kSimulated});
      }
    }
    if (rows == Rows::kPair) {
      const std::string stage = "stage " + std::to_string(mid_stage) + " (" + std::to_string(mid.layers.size()) + " " +
                                layer_kind + " layers)";
      r.rows.push_back(
          {"pair", stage, "F&B pair, overlapped", "ms", std::nullopt, balanced.overlapped_s * 1e3, Basis::kSimulated});
    }
    auto ms = [](double s) { return format_number(s * 1e3); };
    const std::string recompute[] = {"none", "selective", "full"};
    std::string layout_text =
        std::to_string(par.gpus) + " " + gpu->name + " GPUs, TP " + std::to_string(par.tp) +
        (par.tp > 1 && par.sequence_parallel ? " with SP" : "") + ", CP " + std::to_string(par.cp) + ", PP " +
        std::to_string(par.pp) + " (" + step.schedule().kind +
        (par.vpp > 1 ? ", " + std::to_string(par.vpp) + " virtual stages" : "") + ", " +
        std::to_string(step.schedule().micro_batches) + " micro-batches of " +
        std::to_string(batch.micro_batch_sequences) + " x " + std::to_string(batch.sequence_tokens) + " tokens), DP " +
        std::to_string(par.dp) + " with ZeRO-" + std::to_string(par.zero) +
        (model->moe ? ", EP " + std::to_string(par.ep) + ep_text(par) : "") + ", recompute " +
        recompute[static_cast<int>(par.recompute)] +
        (par.unfused_attention ? std::string(", unfused attention (Megatron-LM's softmax") +
                                     (par.attention_dropout ? " and dropout" : "") + ")"
                               : "") +
        ", placement " + joined(par.order, "-") + "; " + (use_flow ? "flow" : "analytical") + " mode";
    std::string note = label + ": " + layout_text + ". A middle stage (" + std::to_string(mid.layers.size()) +
                       " layers): F " + ms(mid.forward_s()) + " ms, B* " + ms(mid.input_backward_s()) + " ms, W " +
                       ms(mid.weight_s()) + " ms";
    if (workload::schedule_kind(step.schedule().kind).overlaps_chunks)
      note += ", F&B " + ms(balanced.overlapped_s) + " ms";
    note += ".";
    {
      // The split, and how far its stages are from equal.
      std::size_t light = 0, heavy = 0;
      auto total_s = [&](std::size_t i) {
        const auto& st = step.stages()[i];
        return st.forward_s() + st.input_backward_s() + st.weight_s();
      };
      for (std::size_t i = 0; i < step.stages().size(); ++i) {
        if (total_s(i) < total_s(light)) light = i;
        if (total_s(i) > total_s(heavy)) heavy = i;
      }
      note += " Stages hold " + layout.describe() +
              " layers (the embedding on the first, the head and loss on the last); F + B + W per micro-batch from " +
              ms(total_s(light)) + " ms (stage " + std::to_string(light) + ") to " + ms(total_s(heavy)) +
              " ms (stage " + std::to_string(heavy) + "), a middle stage's " +
              ms(total_s(static_cast<std::size_t>(mid_stage))) + " ms";
      if (bubble_formula_s)
        note += "; over equal stages the bubble would be " + ms(*bubble_formula_s) + " ms, the step's is " +
                ms(b.bubble_s) + " ms";
      note += ".";
    }
    if (model->moe && par.ep > 1)
      note +=
          " Per MoE layer and micro-batch: dispatch " + ms(ep.dispatch_forward_s) + " ms, combine " +
          ms(ep.combine_forward_s) + " ms (backward " + ms(ep.combine_backward_s) + " + " + ms(ep.dispatch_backward_s) +
          " ms" +
          (ep.groups_simulated > 1
               ? "; the slowest of " + std::to_string(ep.groups_simulated) + " EP groups, all on the fabric at once"
               : "") +
          (cluster && ep_in_step != EpInStepMode::kNo
               ? std::string("; in the step's run every op of every step on its streams, each dispatch and combine its "
                             "group's flows beside the PP and DP traffic") +
                     (ep_in_step == EpInStepMode::kEven
                          ? ", evened per group and op, each op lasting at least its group's time above"
                          : ", each as routed")
               : "") +
          "); busiest expert GPU " + format_number(ep.expert_imbalance) + "x the mean; " +
          comm_kernels_note(compute.kernels, fabric) + ".";
    auto over = [&](double link_Bps) { return link_Bps == fabric.nvlink_Bps ? "NVLink" : "the NICs"; };
    if (par.tp > 1)
      note += links.tp_all_reduce ? " TP collectives as " + links.tp_all_reduce->name +
                                        " measured NCCL's all-reduce (a fixed time a call and a bus bandwidth, "
                                        "data/collectives)."
                                  : std::string(" TP collectives over ") + over(links.tp_Bps) +
                                        " (ring closed forms at the link's rate).";
    if (par.cp > 1)
      note += std::string(" CP's K/V ring over ") + over(links.cp_Bps) + " (closed form at the link's rate).";
    if (cluster)
      note += " All " + std::to_string(cluster->pipelines.size()) +
              " pipelines on the fabric at once, PP sends routed, with the "
              "data-parallel synchronisation in the same run; breakdown of rank " +
              std::to_string(b.rank) +
              " (the most idle) of the "
              "pipeline that ends last. opt: the synchronisation that ends last, pipeline rank " +
              std::to_string(dp_rank) + "'s: gradient ";
    else
      note += " Breakdown of rank " + std::to_string(b.rank) + " (the most idle). opt = gradient ";
    note += (par.zero == 0 ? "all-reduce " + ms(dp.reduce_scatter_s + dp.all_gather_s) + " ms + optimizer " +
                                 ms(dp.optimizer_s) + " ms"
                           : "reduce-scatter " + ms(dp.reduce_scatter_s) + " ms + optimizer " + ms(dp.optimizer_s) +
                                 " ms + weight all-gather" + (par.zero == 3 ? "s (forward and backward) " : " ") +
                                 ms(dp.all_gather_s) + " ms") +
            (par.dp_comm_overlap || cluster ? ", of which " + ms(dp_s) + " ms after the last chunk." : ".");
    r.notes.push_back(note);
    if (slowdowns) {
      if (model->moe && par.ep > 1)
        row("network_ep_slowdown", "full-size fabric: EP all-to-all slowdown (beside the PP sends)", "x",
            slowdowns->ep);
      row("network_pp_slowdown", "full-size fabric: PP send slowdown (beside the all-to-alls)", "x", slowdowns->pp);
      row("network_dp_slowdown", "full-size fabric: data-parallel ring slowdown", "x", slowdowns->dp);
      r.notes.push_back(label + ": " + slowdowns->note);
    }
    if (calibration)
      r.notes.push_back(label + ": calibrated with " + calibration_source +
                        ": the measured attn(F), attn(B) and attn(W) of every layer and mlp(F), "
                        "mlp(B) and mlp(W) of every MoE layer, each scaled by the model from the profiled " +
                        format_number(calibration->micro_batch_tokens) + "-token micro-batch with " +
                        std::to_string(calibration->communication_sms) + " communication SMs to this step's " +
                        format_number(batch.micro_batch_tokens()) + " tokens" +
                        (calibration->communication
                             ? ", and every MoE layer's dispatch(F), combine(F), combine(B) and dispatch(B) "
                               "from their measured spans in proportion to the tokens; the dense layers' FFN"
                             : "; the dense layers' FFN") +
                        ", the embedding, head and MTP projection, " + (calibration->communication ? "" : "the EP, ") +
                        "PP and DP traffic, the schedule and the optimizer from the model.");
    r.rows.insert(r.rows.end(), stragglers.rows.begin(), stragglers.rows.end());
    r.notes.insert(r.notes.end(), stragglers.notes.begin(), stragglers.notes.end());
    if (options.trace)
      r.trace_json =
          op_trace(step, pg, traced_gpus, *timeline, options.trace_kernels, cluster && ep_in_step != EpInStepMode::kNo);
    return r;
  }
};

}  // namespace

namespace {

// "parallel" and "batch": sizes whose product is the GPUs, each dividing what it cuts.
void parse_parallel(core::JsonReader& root, TrainingStepStudy& s) {
  using core::InputError;
  auto& par = s.par;
  const workload::Model& model = *s.model;
  const std::string gpus = std::to_string(par.gpus);
  core::JsonReader p = root.object("parallel");
  auto size = [&](const char* key, long long fallback) {
    return static_cast<int>(p.positive_integer(key, fallback, 1 << 20));
  };
  par.tp = size("tp", 1);
  par.sequence_parallel = p.boolean("sequence_parallel", par.tp > 1);
  par.cp = size("cp", 1);
  par.pp = size("pp", 1);
  par.vpp = size("vpp", 1);
  par.ep = size("ep", 1);
  par.etp = size("etp", 1);
  par.zero = static_cast<int>(p.non_negative_integer("zero", 1, 3));
  const auto recompute = p.one_of("recompute", {"none", "selective", "full"}, "selective");
  par.recompute = recompute == "none"   ? workload::Recompute::kNone
                  : recompute == "full" ? workload::Recompute::kFull
                                        : workload::Recompute::kSelective;
  par.tp_comm_overlap = p.boolean("tp_comm_overlap", false);
  par.dp_comm_overlap = p.boolean("dp_comm_overlap", false);
  // Megatron-LM's attention before FlashAttention (SC'21 and earlier runs): the scores through HBM.
  par.unfused_attention = p.one_of("attention", {"flash", "unfused"}, "flash") == "unfused";
  par.attention_dropout = p.boolean("attention_dropout", false);
  if (par.attention_dropout && !par.unfused_attention)
    throw InputError(p.pointer_of("attention_dropout"),
                     "true is not allowed with /parallel/attention \"flash\"; dropout on the probabilities is "
                     "timed on the unfused path only (FlashAttention applies it inside its kernel)");
  if (par.unfused_attention && par.cp > 1)
    throw InputError(p.pointer_of("attention"),
                     "'unfused' is not allowed with cp " + std::to_string(par.cp) +
                         "; context parallelism passes K and V around a ring of fused attention kernels");
  // A schedule by the name /parallel/schedule gives it ("interleaved" for 1f1b-interleaved).
  std::vector<std::string> schedules;
  for (const auto& kind : workload::pipeline_schedules()) schedules.push_back(kind.parallel_name);
  const auto schedule = p.one_of("schedule", schedules, "1f1b");
  for (const auto& kind : workload::pipeline_schedules())
    if (kind.parallel_name == schedule) par.schedule = kind.name;
  if (auto order = p.optional_string("order")) {
    const auto names = split(*order, '-');
    auto sorted = names, allowed = workload::placement_dimensions();
    std::sort(sorted.begin(), sorted.end());
    std::sort(allowed.begin(), allowed.end());
    if (sorted != allowed || names.front() != "tp")
      throw InputError(p.pointer_of("order"),
                       "'" + *order + "' is not allowed; expected the dimensions " +
                           joined(workload::placement_dimensions(), ", ") +
                           " once each, innermost first, joined by '-', starting with tp (e.g. \"tp-cp-ep-pp-dp\")");
    par.order = names;
  }
  const int model_parallel = par.tp * par.cp * par.pp;
  if (par.gpus % model_parallel != 0) {
    const char* field = par.gpus % par.tp != 0 ? "tp" : par.gpus % (par.tp * par.cp) != 0 ? "cp" : "pp";
    const int value = field[0] == 't' ? par.tp : field[0] == 'c' ? par.cp : par.pp;
    throw InputError(p.pointer_of(field),
                     std::to_string(value) + " is not allowed; tp x cp x pp = " + std::to_string(model_parallel) +
                         " does not divide the " + gpus +
                         " GPUs (/fabric/nodes x gpus_per_node), which tp x cp x pp x dp must equal");
  }
  par.dp = static_cast<int>(p.positive_integer("dp", par.gpus / model_parallel, 1 << 20));
  if (static_cast<long long>(model_parallel) * par.dp != par.gpus)
    throw InputError(p.pointer_of("dp"), std::to_string(par.dp) + " is not allowed; tp x cp x pp x dp = " +
                                             std::to_string(static_cast<long long>(model_parallel) * par.dp) +
                                             ", the GPUs are " + gpus);
  const auto& a = model.attention;
  if (par.tp > par.gpus_per_node)
    throw InputError(p.pointer_of("tp"), std::to_string(par.tp) + " is not allowed; TP stays inside a node of " +
                                             std::to_string(par.gpus_per_node) + " GPUs");
  if (a.heads % par.tp != 0)
    throw InputError(p.pointer_of("tp"), std::to_string(par.tp) + " does not divide the " + std::to_string(a.heads) +
                                             " attention heads of " + model.display_name);
  if (par.vpp > 1 && !workload::schedule_kind(par.schedule).virtual_stages)
    throw InputError(p.pointer_of("vpp"), std::to_string(par.vpp) + " is not allowed with schedule '" + schedule +
                                              "'; virtual stages need \"interleaved\"");
  if (model.moe) {
    // MoE parallel folding: the experts' grid (etp x ep x expert DP) covers the GPUs of a
    // pipeline stage, as attention's (tp x cp x dp) does.
    const int experts = model.moe->routed_experts;
    const long long stage_gpus = static_cast<long long>(par.tp) * par.cp * par.dp;
    if (experts % par.ep != 0)
      throw InputError(p.pointer_of("ep"),
                       std::to_string(par.ep) + " does not divide the " + std::to_string(experts) + " routed experts");
    if (par.etp > par.gpus_per_node || par.gpus_per_node % par.etp != 0 || model.moe->expert_ffn % par.etp != 0)
      throw InputError(p.pointer_of("etp"),
                       std::to_string(par.etp) + " is not allowed; an expert is cut into parts that divide its " +
                           std::to_string(model.moe->expert_ffn) + " FFN columns, inside a node of " +
                           std::to_string(par.gpus_per_node) + " GPUs");
    if (stage_gpus % (static_cast<long long>(par.etp) * par.ep) != 0)
      throw InputError(p.pointer_of("ep"), std::to_string(par.ep) +
                                               " is not allowed; etp x ep = " + std::to_string(par.etp * par.ep) +
                                               " does not divide the " + std::to_string(stage_gpus) +
                                               " GPUs of a pipeline stage (tp x cp x dp), over which the experts fold");
    if (!par.experts_fit_pipeline_stride())
      throw InputError(
          p.pointer_of("order"),
          "'" + joined(par.order, "-") + "' is not allowed with etp " + std::to_string(par.etp) + ", ep " +
              std::to_string(par.ep) + ": it places PP at a stride of " + std::to_string(par.pipeline_stride()) +
              " ranks, inside an expert dimension it does not divide; put pp last (Megatron-Core's default)");
  } else {
    if (par.ep != 1)
      throw InputError(p.pointer_of("ep"),
                       std::to_string(par.ep) + " is not allowed; " + model.display_name + " is dense (ep 1)");
    if (par.etp != 1)
      throw InputError(p.pointer_of("etp"),
                       std::to_string(par.etp) + " is not allowed; " + model.display_name + " is dense (etp 1)");
  }
  const bool mtp = p.boolean("mtp", model.mtp_modules > 0);

  core::JsonReader bt = root.object("batch");
  auto& batch = s.batch;
  batch.global_sequences = static_cast<int>(bt.positive_integer("global_sequences", 1 << 24));
  batch.sequence_tokens = static_cast<int>(bt.positive_integer("sequence_tokens", 1 << 20));
  batch.micro_batch_sequences = static_cast<int>(bt.positive_integer("micro_batch_sequences", 1, 1 << 16));
  bt.finish();
  if (batch.sequence_tokens % (2 * par.cp) != 0)
    throw InputError(p.pointer_of("cp"), std::to_string(par.cp) +
                                             " is not allowed; CP cuts each sequence into 2 x cp chunks (causal "
                                             "balance), and 2 x " +
                                             std::to_string(par.cp) + " does not divide /batch/sequence_tokens " +
                                             std::to_string(batch.sequence_tokens));
  const long long per_replica = batch.global_sequences / par.dp;
  if (batch.global_sequences % par.dp != 0 || per_replica % batch.micro_batch_sequences != 0)
    throw InputError(bt.pointer_of("global_sequences"), std::to_string(batch.global_sequences) +
                                                            " sequences do not split into " + std::to_string(par.dp) +
                                                            " data-parallel replicas of whole micro-batches of " +
                                                            std::to_string(batch.micro_batch_sequences));
  workload::check_schedule_request({par.schedule, par.pp, per_replica / batch.micro_batch_sequences, par.vpp},
                                   p.pointer() + "/");
  const int stages = par.stages();
  // The stage split: at most one way of giving it.
  std::vector<std::string> given;
  for (const char* key :
       {"layers_per_stage", "pipeline_layout", "first_stage_layers", "last_stage_layers", "stage_split"})
    if (p.has(key)) given.push_back(key);
  const bool by_rank = p.has("first_stage_layers") || p.has("last_stage_layers");
  if (given.size() > 1 && !(given.size() == 2 && given[0] == "first_stage_layers" && given[1] == "last_stage_layers"))
    throw InputError(p.pointer_of(given[1]),
                     "is not allowed beside " + p.pointer_of(given[0]) + "; give the stage split one way");
  if (p.has("layers_per_stage")) {
    const auto sizes = p.number_list("layers_per_stage", {0, 1e6, true, 0});
    if (static_cast<int>(sizes.size()) != stages)
      throw InputError(
          p.pointer_of("layers_per_stage"),
          std::to_string(sizes.size()) + " entries is not allowed; one per stage (" + std::to_string(stages) + ")");
    s.layout = workload::explicit_stage_layout(model, std::vector<int>(sizes.begin(), sizes.end()), mtp,
                                               p.pointer_of("layers_per_stage"));
  } else if (auto text = p.optional_string("pipeline_layout")) {
    const std::string where = p.pointer_of("pipeline_layout");
    s.layout = workload::string_stage_layout(model, workload::parse_pipeline_layout(*text, where), stages, mtp, where);
  } else if (by_rank) {
    if (workload::schedule_kind(par.schedule).v_shape)
      throw InputError(p.pointer_of(given[0]), "is not allowed with schedule '" + par.schedule +
                                                   "', whose ranks hold a first and a last stage "
                                                   "each; give layers_per_stage or pipeline_layout");
    workload::RankLayerCounts counts;
    if (p.has("first_stage_layers"))
      counts.first = static_cast<int>(p.non_negative_integer("first_stage_layers", 0, model.layers));
    if (p.has("last_stage_layers"))
      counts.last = static_cast<int>(p.non_negative_integer("last_stage_layers", 0, model.layers));
    counts.first_where = p.pointer_of("first_stage_layers");
    counts.last_where = p.pointer_of("last_stage_layers");
    s.layout = workload::megatron_stage_layout(model, par.pp, stages / par.pp, counts, mtp, p.pointer_of("pp"));
  } else if (p.one_of("stage_split", {"balanced", "even"}, "balanced") == "even") {
    s.layout = workload::megatron_stage_layout(model, stages, 1, {}, mtp, p.pointer_of("stage_split"));
  } else {
    s.layout = workload::balanced_stage_layout(model, stages, mtp, batch.sequence_tokens, p.pointer_of("pp"));
  }
  p.finish();
}

}  // namespace

std::unique_ptr<Study> parse_training_step_study(core::JsonReader& root) {
  auto s = std::make_unique<TrainingStepStudy>();
  s->model = &read_model(root);
  s->gpu = &hw::gpu_by_name(root.one_of("gpu", hw::gpu_names(), "H800"), root.pointer_of("gpu"));
  s->flow = root.one_of("mode", {"flow", "analytical"}, "flow") == "flow";
  const auto rows = root.one_of("rows", {"all", "ops", "pair", "stragglers"}, "all");
  s->rows = rows == "ops"          ? TrainingStepStudy::Rows::kOps
            : rows == "pair"       ? TrainingStepStudy::Rows::kPair
            : rows == "stragglers" ? TrainingStepStudy::Rows::kStragglers
                                   : TrainingStepStudy::Rows::kAll;
  if (auto file = root.optional_string("calibration")) {
    const std::string path = resolve_input_file(*file);
    const auto profile = workload::read_calibration(path);
    const std::string& gpu_name = s->gpu->name;
    if (profile.device.find(gpu_name) == std::string::npos)
      throw core::InputError(path + ": /device", "'" + profile.device + "' is not allowed; the scenario runs on " +
                                                     gpu_name + " (a calibration holds for the GPU it was taken on)");
    if (profile.workload.micro_batch_tokens <= 0 || profile.workload.communication_sms < 0)
      throw core::InputError(path + ": /workload",
                             "needs micro_batch_tokens and communication_sms (calibrate --micro-batch-tokens N "
                             "--communication-sms N) to scale the measured ops");
    workload::OpCalibration cal;
    cal.micro_batch_tokens = profile.workload.micro_batch_tokens;
    cal.communication_sms = profile.workload.communication_sms;
    // Each op holds its streams from its first kernel's start to its last one's end: the gaps
    // between its kernels (launches, 2 us each in DeepSeek's profile) are its time too.
    auto take = [&](const std::vector<std::string>& ops, const std::string& needs) {
      for (const auto& op : ops) {
        const auto it = profile.ops.find(op);
        if (it == profile.ops.end() || it->second.span_ms <= 0)
          throw core::InputError(path + ": /ops/" + op, "missing; " + needs);
        cal.op_s[op] = it->second.span_ms / 1e3;
      }
    };
    take(workload::OpCalibration::op_names(),
         "a training step's calibration needs attn(F), mlp(F), attn(B), attn(W), mlp(B) and mlp(W)");
    cal.communication = root.one_of("calibrated_ops", {"compute", "all"}, "compute") == "all";
    if (cal.communication)
      take(workload::OpCalibration::communication_op_names(),
           "\"calibrated_ops\": \"all\" needs dispatch(F), combine(F), combine(B) and dispatch(B)");
    if (cal.communication_sms >= s->gpu->sm_count)
      throw core::InputError(path + ": /workload/communication_sms", std::to_string(cal.communication_sms) +
                                                                         " is not allowed; the GPU has " +
                                                                         std::to_string(s->gpu->sm_count) + " SMs");
    s->calibration = cal;
    s->calibration_source = *file + " (" + profile.device + ")";
  } else if (auto ops = root.optional_string("calibrated_ops")) {
    throw core::InputError(root.pointer_of("calibrated_ops"),
                           "'" + *ops + "' is not allowed without /calibration, the file of measured ops");
  }

  core::JsonReader f = root.object("fabric");
  s->fabric.kind =
      f.one_of("kind", {"mpft", "mrft"}) == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  read_fabric_fields(f, s->fabric, true);
  f.finish();
  net::check_fabric(s->fabric, f.pointer() + "/");
  refuse_job_stopping_faults(s->fabric, f.pointer() + "/");
  if (!s->flow && !s->fabric.faults.empty())
    throw core::InputError(f.pointer_of("faults"),
                           "is not allowed in analytical mode; faults change the network during the flow "
                           "model's run (set /mode to \"flow\")");
  if (s->flow && s->fabric.nodes * s->fabric.gpus_per_node > 16384)
    throw core::InputError(f.pointer_of("nodes"), std::to_string(s->fabric.nodes) +
                                                      " nodes is more than flow mode simulates (16,384 GPUs); "
                                                      "set /mode to \"analytical\"");
  if (root.has("scale_fabric")) {
    if (s->flow)
      throw core::InputError(root.pointer_of("scale_fabric"),
                             "is not allowed in flow mode; the full-size topology's traffic by classes joins the "
                             "analytical step (set /mode to \"analytical\")");
    core::JsonReader n = root.object("scale_fabric");
    s->scale_network = parse_scale_step_network(n);
    s->scale_network_pointer = n.pointer();
    n.finish();
  }
  if (root.has("straggler_cases")) {
    if (!s->flow)
      throw core::InputError(root.pointer_of("straggler_cases"),
                             "is not allowed in analytical mode; stragglers slow GPUs during the flow "
                             "model's run (set /mode to \"flow\")");
    std::set<std::string> ids;
    for (core::JsonReader& c : root.object_list("straggler_cases", "cases: {id, label, stragglers}")) {
      TrainingStepStudy::StragglerCase straggler_case;
      straggler_case.id = c.unique_string("id", ids);
      straggler_case.label = c.string("label");
      core::JsonReader st = c.object("stragglers");
      straggler_case.slowdowns = read_stragglers(st, s->fabric);
      c.finish();
      s->straggler_cases.push_back(std::move(straggler_case));
    }
  } else if (s->rows == TrainingStepStudy::Rows::kStragglers) {
    throw core::InputError(root.pointer_of("rows"), "'stragglers' is not allowed without /straggler_cases");
  }
  auto& par = s->par;
  par.gpus_per_node = s->fabric.gpus_per_node;
  par.gpus = s->fabric.nodes * par.gpus_per_node;
  s->label = root.optional_string("label").value_or(s->fabric.kind == net::FabricKind::kMultiPlane ? "MPFT" : "MRFT");
  parse_parallel(root, *s);
  // The profiled ops are scaled by the model between token counts and SM shares, not between
  // layouts that cut each layer differently.
  if (s->calibration && (par.tp > 1 || par.cp > 1))
    throw core::InputError(root.pointer_of("parallel") + "/" + (par.tp > 1 ? "tp" : "cp"),
                           std::to_string(par.tp > 1 ? par.tp : par.cp) +
                               " is not allowed with a calibration; its ops were profiled "
                               "whole on each GPU (TP 1, CP 1), and scaling them to another cut is not modelled");
  s->compute = parse_compute(root.object("compute"), *s->gpu, 20,
                             {hw::GemmKind::kDense, hw::GemmKind::kGroupedContiguous, hw::GemmKind::kWeightGradient});
  if (par.unfused_attention && s->compute.fp8_gemms)
    throw core::InputError(root.pointer_of("parallel") + "/attention",
                           "'unfused' is not allowed with FP8 GEMMs (/compute/fp8_gemms); the unfused path is "
                           "Megatron-LM's BF16/FP16 attention before FlashAttention");

  if (auto m = root.optional_object("moe")) {
    s->simulated_tokens_per_gpu = static_cast<int>(m->positive_integer("simulated_tokens_per_gpu", 256, 1 << 16));
    s->seed = static_cast<std::uint64_t>(m->positive_integer("seed", 1, core::JsonReader::kMaxInteger));
    s->affinity = parse_affinity(*m, "uniform", 0.0);
    const auto traffic = m->one_of("traffic", {"per-micro-batch", "in-step", "in-step-per-flow"}, "per-micro-batch");
    s->ep_in_step = traffic == "in-step"            ? TrainingStepStudy::EpInStepMode::kEven
                    : traffic == "in-step-per-flow" ? TrainingStepStudy::EpInStepMode::kPerFlow
                                                    : TrainingStepStudy::EpInStepMode::kNo;
    if (s->ep_in_step != TrainingStepStudy::EpInStepMode::kNo && !s->flow)
      throw core::InputError(m->pointer_of("traffic"),
                             "'" + traffic +
                                 "' is not allowed in analytical mode; it puts the all-to-alls "
                                 "in the flow model's run of the step (set /mode to \"flow\")");
    if (static_cast<long long>(s->simulated_tokens_per_gpu) * par.ep > (1 << 18))
      throw core::InputError(m->pointer_of("simulated_tokens_per_gpu"),
                             std::to_string(s->simulated_tokens_per_gpu) + " is not allowed; x EP " +
                                 std::to_string(par.ep) +
                                 " it routes more than 262,144 tokens (each with a score per expert held in memory)");
    m->finish();
  }
  if (auto o = root.optional_object("optimizer")) {
    s->optimizer.gradient_bytes = o->positive_number("gradient_bytes", 4);
    s->optimizer.parameter_bytes = o->positive_number("parameter_bytes", 2);
    s->optimizer.master_and_moment_bytes = o->non_negative_number("master_and_moment_bytes", 12);
    // AdamW reads the master weight, moments and gradient and writes the first three and the
    // weights it holds.
    s->optimizer.state_bytes_per_parameter =
        o->positive_number("state_bytes_per_parameter", 2 * s->optimizer.master_and_moment_bytes +
                                                            s->optimizer.gradient_bytes + s->optimizer.parameter_bytes);
    o->finish();
  }
  if (auto m = root.optional_object("memory")) {
    s->reserved_bytes = m->non_negative_number("reserved_bytes", s->reserved_bytes);
    m->finish();
  }
  if (s->calibration && s->calibration->communication) {
    // The measured all-to-alls are scaled only by their bytes.
    const std::string why = " is not allowed with \"calibrated_ops\": \"all\"";
    if (s->compute.kernels.sms != s->calibration->communication_sms)
      throw core::InputError(root.pointer_of("compute") + "/communication_sms",
                             std::to_string(s->compute.kernels.sms) + why + "; the all-to-alls were profiled on " +
                                 std::to_string(s->calibration->communication_sms) + " SMs");
    if (par.recompute == workload::Recompute::kFull)
      throw core::InputError(root.pointer_of("parallel") + "/recompute",
                             "'full'" + why + " (its reruns of the all-to-alls are not profiled)");
    if (s->ep_in_step != TrainingStepStudy::EpInStepMode::kNo) {
      const bool even = s->ep_in_step == TrainingStepStudy::EpInStepMode::kEven;
      throw core::InputError(root.pointer_of("moe") + "/traffic",
                             std::string(even ? "'in-step'" : "'in-step-per-flow'") + why +
                                 ", which takes the all-to-alls' times from the profile instead of the fabric's run");
    }
  }
  if (s->scale_network) {
    check_scale_step_network(*s->scale_network, par.gpus, par.gpus_per_node);
    // The classes' groups are consecutive GPUs, as Megatron-Core's order places EP inside DP.
    if (s->model->moe && par.ep > 1) {
      const auto group = par.expert_grid().group_of(0, {"ep"});
      for (std::size_t i = 0; i < group.size(); ++i)
        if (group[i] != static_cast<int>(i))
          throw core::InputError(s->scale_network_pointer,
                                 "needs each EP group on consecutive GPUs; the order places its GPUs " +
                                     std::to_string(group[1] - group[0]) +
                                     " apart (put ep before dp, with tp x cp inside a node)");
    }
  }
  if (s->rows == TrainingStepStudy::Rows::kPair && !workload::schedule_kind(par.schedule).overlaps_chunks) {
    std::vector<std::string> overlapping;
    for (const auto& kind : workload::pipeline_schedules())
      if (kind.overlaps_chunks) overlapping.push_back(kind.name);
    throw core::InputError(root.pointer_of("rows"), "'pair' is not allowed with the " + par.schedule +
                                                        " schedule; it overlaps no forward "
                                                        "and backward chunk (" +
                                                        joined(overlapping, " and ") + " do)");
  }
  return s;
}

}  // namespace studies
