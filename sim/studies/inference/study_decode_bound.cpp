#include "studies/inference/study_decode_bound.hpp"

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "core/units.hpp"
#include "net/platform.hpp"
#include "studies/config/cluster_config.hpp"
#include "studies/config/model_config.hpp"
#include "studies/config/numerics_config.hpp"
#include "workload/inference/decode_bound.hpp"
#include "workload/inference/decode_step.hpp"
#include "workload/model/model.hpp"

namespace studies {

namespace {

class DecodeBoundStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  ClusterConfig cluster;
  bool scale_up_path = false;
  workload::DecodeBoundInput input;
  int flow_devices = 0;  // 0: no flow simulation
  std::optional<NumericsConfig> numerics;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const auto bound = workload::decode_bound(input);
    const std::string link = scale_up_path ? "scale-up" : "scale-out";
    r.rows.push_back({"comm_per_ep_step",
                      "dispatch + combine per EP step (bound)",
                      "time",
                      "us",
                      {},
                      bound.comm_s_per_ep_step / core::kMicrosecond});
    r.rows.push_back(
        {"layer", "one layer, dual micro-batch overlap (bound)", "time", "us", {}, bound.layer_s / core::kMicrosecond});
    r.rows.push_back({"tpot",
                      "TPOT, " + std::to_string(input.layers) + " layers (bound)",
                      "time",
                      "ms",
                      {},
                      bound.tpot_s / core::kMillisecond});
    r.rows.push_back({"tokens_per_s", "output speed per user (bound)", "rate", "tokens/s", {}, bound.tokens_per_s});
    r.notes.push_back(
        "Bound: (" + format_number(input.dispatch_bytes_per_element) + " B dispatch + " +
        format_number(input.combine_bytes_per_element) + " B combine) x " + format_number(input.tokens_per_device) +
        " tokens x " + format_number(input.experts_per_token) + " experts x " + format_number(input.hidden) +
        " hidden / " + format_number(input.link_Bps / core::kGBps) + " GB/s " + link + " per GPU; a layer is " +
        std::to_string(input.micro_batches) + " such steps, compute " +
        (input.compute == workload::DecodeCompute::kNone ? "taken to zero" : "equal to communication and overlapped") +
        ".");
    if (input.hidden != model->hidden) {
      auto exact = input;
      exact.hidden = model->hidden;
      const auto b = workload::decode_bound(exact);
      r.rows.push_back({"tpot_model_hidden",
                        "TPOT with the model's hidden " + std::to_string(model->hidden) + " (bound)",
                        "time",
                        "ms",
                        {},
                        b.tpot_s / core::kMillisecond});
      r.notes.push_back("The paper rounds the hidden size to " + format_number(input.hidden) + " (\"7K\"); with " +
                        model->display_name + "'s " + std::to_string(model->hidden) + " every bound figure grows by " +
                        format_delta(model->hidden / input.hidden - 1) + ".");
    }
    if (flow_devices > 0 && options.simulate) {
      const workload::DecodeStepLayout layout{flow_devices, scale_up_path ? 1 : cluster.cluster.gpus_per_node};
      net::Cluster c = cluster.cluster;
      c.nodes = (flow_devices + c.gpus_per_node - 1) / c.gpus_per_node;
      const auto graph = workload::decode_step_graph(input, layout);
      core::SimulationStats stats;
      const core::Timeline timeline = core::simulate(net::StarPlatform(c), graph, &stats);
      const double tpot = timeline.makespan_s();
      const double latency = scale_up_path ? c.scale_up_latency_s : c.scale_out_latency_s;
      r.rows.push_back(
          {"tpot_flow", "TPOT, flow simulation", "time", "ms", {}, tpot / core::kMillisecond, Basis::kSimulated});
      r.rows.push_back({"tokens_per_s_flow",
                        "output speed per user, flow simulation",
                        "rate",
                        "tokens/s",
                        {},
                        1.0 / tpot,
                        Basis::kSimulated});
      r.rows.push_back(
          {"flow_over_bound", "flow simulation / bound", "ratio", "x", {}, tpot / bound.tpot_s, Basis::kSimulated});
      r.notes.push_back(
          "Flow simulation: " + std::to_string(flow_devices) + " GPUs, each sending its tokens to " +
          format_number(input.experts_per_token) + " expert GPUs over " + link + " links with " +
          format_number(latency / core::kMicrosecond) + " us end-to-end latency; " + std::to_string(stats.flows) +
          " flows in " + std::to_string(stats.tasks) + " tasks. It exceeds the bound by the latency of its " +
          std::to_string(2 * input.micro_batches * input.layers) +
          " sequential all-to-alls (and, with compute, one pipeline fill); with zero latency the two agree.");
      if (options.trace) r.trace_json = timeline.chrome_trace_json();
    }
    if (numerics) {
      // Each device's expert sees its tokens times the experts each token picks, spread over
      // the devices: tokens_per_device x experts_per_token rows per expert on average.
      const auto& moe = *model->moe;
      const long long rows = static_cast<long long>(input.tokens_per_device * input.experts_per_token);
      const std::vector<GemmShape> shapes = {
          {"expert gate+up projection", rows, 2LL * moe.expert_ffn, model->hidden},
          {"expert down projection", rows, model->hidden, moe.expert_ffn},
      };
      const auto extra = numerics_rows(shapes, *numerics);
      r.rows.insert(r.rows.end(), extra.begin(), extra.end());
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_decode_bound_study(core::JsonReader& root) {
  auto s = std::make_unique<DecodeBoundStudy>();
  s->model = &read_model(root);
  s->cluster = parse_cluster(root.object("cluster"));
  core::JsonReader d = root.object("decode");
  const workload::Model& m = *s->model;
  auto& in = s->input;
  s->scale_up_path = d.one_of("path", {"scale-out", "scale-up"}) == "scale-up";
  in.link_Bps = s->scale_up_path ? s->cluster.cluster.scale_up_Bps : s->cluster.cluster.scale_out_Bps;
  in.tokens_per_device = static_cast<double>(d.positive_integer("tokens_per_device", 1'000'000));
  if (!m.moe)
    throw core::InputError(root.pointer_of("model"), "'" + m.name + "' is dense; the decode bound needs an MoE model");
  const long long routed = d.positive_integer("routed_experts_per_token", m.moe->active_routed_experts, 4096);
  const long long shared = d.non_negative_integer("shared_experts_per_token", m.moe->shared_experts, 4096);
  in.experts_per_token = static_cast<double>(routed + shared);
  in.hidden = d.positive_number("hidden", m.hidden);
  in.dispatch_bytes_per_element = d.positive_number("dispatch_bytes_per_element", 1.0);
  in.combine_bytes_per_element = d.positive_number("combine_bytes_per_element", 2.0);
  in.layers = static_cast<int>(d.positive_integer("layers", m.layers, 100'000));
  in.micro_batches = static_cast<int>(d.positive_integer("micro_batches", 2, 64));
  in.compute = d.one_of("compute", {"none", "equal-to-comm"}, "none") == "none" ? workload::DecodeCompute::kNone
                                                                                : workload::DecodeCompute::kEqualToComm;
  if (auto flow = d.optional_object("flow")) {
    const int gpn = s->cluster.cluster.gpus_per_node;
    const int experts = static_cast<int>(in.experts_per_token);
    s->flow_devices = static_cast<int>(flow->positive_integer("devices", 100'000));
    const std::string where = flow->pointer_of("devices");
    const std::string n = std::to_string(s->flow_devices);
    if (s->scale_up_path && (s->flow_devices > gpn || s->flow_devices <= experts))
      throw core::InputError(where, n + " is not allowed; on the scale-up path every device sends to " +
                                        std::to_string(experts) + " others inside one " + std::to_string(gpn) +
                                        "-GPU domain, so devices must be from " + std::to_string(experts + 1) + " to " +
                                        std::to_string(gpn));
    if (!s->scale_up_path && (s->flow_devices % gpn != 0 || s->flow_devices < gpn * (experts + 1)))
      throw core::InputError(where, n + " is not allowed; on the scale-out path every device sends to " +
                                        std::to_string(experts) +
                                        " devices in other nodes, so devices must be a multiple of " +
                                        std::to_string(gpn) + " and at least " + std::to_string(gpn * (experts + 1)));
    flow->finish();
  }
  d.finish();
  s->numerics = parse_numerics(root);
  return s;
}

}  // namespace studies
