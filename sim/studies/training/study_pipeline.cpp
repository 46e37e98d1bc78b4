#include "studies/training/study_pipeline.hpp"

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/platform.hpp"
#include "studies/config/cluster_config.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/pipeline/schedule_check.hpp"
#include "workload/pipeline/schedule_registry.hpp"

namespace studies {

namespace {

struct Formula {
  std::string label;
  std::optional<double> bubble_s;
  std::optional<double> activations;
  std::optional<double> parameter_copies;
};

// Table 2 of the DeepSeek-V3 report, plus DualPipeV with its pp stages on pp / 2 devices.
Formula table2(const workload::ScheduleKind& kind, int pp, const workload::PassTimes& t) {
  const int devices = kind.v_shape ? pp / 2 : pp;
  return {kind.label, kind.bubble_s(devices, t), kind.activations(pp), kind.parameter_copies};
}

class PipelineStudy : public Study {
 public:
  int pp = 0;
  int micro_batches = 0;
  int virtual_stages = 2;
  std::vector<std::string> kinds;
  workload::PassTimes times;
  double transfer_bytes = 0;
  net::Cluster cluster;
  bool flow = true;  // the flow model, else the analytical engine (exact: PP transfers never share a link)

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    if (options.trace && kinds.size() > 1)
      throw core::InputError("--trace", "a trace shows one schedule and this scenario has " +
                                            std::to_string(kinds.size()) + "; add --set '/pipeline/schedules=[\"" +
                                            kinds.front() + "\"]'");
    for (const auto& kind : kinds) {
      const workload::ScheduleKind& row = workload::schedule_kind(kind);
      const bool devices_halved = row.v_shape;
      const auto schedule = workload::schedule_for({kind, devices_halved ? pp / 2 : pp, micro_batches, virtual_stages});
      if (const auto problems = workload::check_schedule(schedule); !problems.empty())
        throw std::logic_error(kind + " schedule is unsound: " + problems.front());
      const Formula f = table2(row, pp, times);
      const std::string label = f.label + (devices_halved ? " (" + std::to_string(pp / 2) + " devices)" : "");
      const auto pg = workload::pipeline_graph(schedule, times, transfer_bytes);
      net::Cluster c = cluster;
      c.nodes = (schedule.ranks + c.gpus_per_node - 1) / c.gpus_per_node;
      const core::Timeline timeline =
          flow && options.simulate
              ? core::simulate(net::StarPlatform(c), pg.graph)
              : core::evaluate_analytically(pg.graph, [&c](const core::Flow& f) {
                  return f.bytes / (c.node_of(f.src_rank) == c.node_of(f.dst_rank) ? c.scale_up_Bps : c.scale_out_Bps) +
                         (c.node_of(f.src_rank) == c.node_of(f.dst_rank) ? c.scale_up_latency_s
                                                                         : c.scale_out_latency_s);
                });
      const auto m = workload::pipeline_metrics(schedule, pg, timeline);
      r.rows.push_back(
          {kind + "/bubble", label, "bubble (critical rank idle)", "s", f.bubble_s, m.bubble_s, Basis::kFormula});
      r.rows.push_back({kind + "/activations", label, "peak in-flight activations", "chunks", f.activations,
                        double(m.max_peak_activations), Basis::kFormula});
      r.rows.push_back({kind + "/parameters", label, "parameter copies (stages per rank)", "x", f.parameter_copies,
                        double(m.parameter_copies), Basis::kFormula});
      r.rows.push_back({kind + "/step", label, "step time", "s", std::nullopt, m.step_s});
      if (options.trace) r.trace_json = timeline.chrome_trace_json();
    }
    r.notes.push_back(
        "The paper column is the report's Table 2 formula evaluated at F = " + format_number(times.forward_s) +
        ", B = " + format_number(times.backward_s) + ", W = " + format_number(times.weight_s) +
        ", F&B = " + format_number(times.overlapped_s) +
        " s; ours comes from simulating the generated schedule (PP = " + std::to_string(pp) + ", " +
        std::to_string(micro_batches) +
        " micro-batches; DualPipe counts both directions). Activations count forward chunks whose backward has not run.");
    r.notes.push_back(
        "1F1B's formula holds for any F and B; ZB1P's where W <= F and W <= B - W (a deferred weight pass fits the gap "
        "it fills); DualPipe's and DualPipeV's at the design point of the reference order, F = B - W = W, with B <= F&B "
        "<= F + B. Away from those points the simulated bubble is the schedule's real one and departs from the "
        "formula.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_pipeline_study(core::JsonReader& root) {
  auto s = std::make_unique<PipelineStudy>();
  s->flow = root.one_of("mode", {"flow", "analytical"}, "flow") == "flow";
  core::JsonReader p = root.object("pipeline");
  s->kinds = p.string_list("schedules", workload::schedule_kinds());
  s->pp = static_cast<int>(p.positive_integer("pp", 4096));
  s->micro_batches = static_cast<int>(p.positive_integer("micro_batches", 1 << 20));
  s->virtual_stages = static_cast<int>(p.positive_integer("virtual_stages", 2, 64));
  s->times.forward_s = p.positive_number("forward_s");
  s->times.backward_s = p.positive_number("backward_s");
  s->times.weight_s = p.non_negative_number("weight_s", 0.0);
  s->times.overlapped_s = p.positive_number("overlapped_s", s->times.forward_s + s->times.backward_s);
  if (s->times.weight_s >= s->times.backward_s)
    throw core::InputError(p.pointer_of("weight_s"),
                           format_number(s->times.weight_s) +
                               " is not allowed; the weight pass is part of the backward, so W < B (" +
                               format_number(s->times.backward_s) + ")");
  s->transfer_bytes = p.non_negative_number("transfer_bytes", 0.0);
  p.finish();
  // Check every schedule's request now, so that bad input fails before anything runs.
  for (std::size_t i = 0; i < s->kinds.size(); ++i) {
    const workload::ScheduleKind* row = workload::find_schedule_kind(s->kinds[i]);
    const bool halved = row && row->v_shape;
    if (halved && s->pp % 2 != 0)
      throw core::InputError(p.pointer_of("pp"),
                             std::to_string(s->pp) + " is odd; " + row->label + " runs pp stages on pp / 2 devices");
    workload::check_schedule_request({s->kinds[i], halved ? s->pp / 2 : s->pp, s->micro_batches, s->virtual_stages},
                                     root.pointer_of("pipeline") + "/");
  }
  if (auto c = root.optional_object("cluster")) {
    s->cluster = parse_cluster(*c).cluster;
  } else {
    // No cluster: PP transfers are free, the setting in which Table 2's formulas are stated.
    s->cluster = net::ideal_cluster(1);
    if (s->transfer_bytes > 0)
      throw core::InputError(p.pointer_of("transfer_bytes"), "needs a /cluster to carry the transfers");
  }
  return s;
}

}  // namespace studies
