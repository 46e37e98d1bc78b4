#include "studies/network/study_moe_dispatch.hpp"

#include <algorithm>
#include <optional>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "hw/node.hpp"
#include "net/fabric.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/config/model_config.hpp"
#include "workload/model/model.hpp"
#include "workload/moe/comm_kernels.hpp"
#include "workload/moe/ep_comm.hpp"
#include "workload/moe/moe_dispatch.hpp"

namespace studies {

namespace {

// Mean bytes per GPU of one stage of the traffic (IB between nodes, or NVLink inside them).
double bytes_per_gpu(const std::vector<std::vector<double>>& matrix, double scale) {
  double total = 0;
  for (const auto& row : matrix)
    for (double b : row) total += b;
  return total * scale / static_cast<double>(matrix.size());
}

class MoeDispatchStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  std::vector<int> ep_sizes;
  int tokens_per_gpu = 4096;
  int simulated_tokens_per_gpu = 256;
  std::uint64_t seed = 1;
  net::FabricSpec fabric;
  std::vector<workload::CommKernels> kernels;  // one per SM count asked for

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const auto& moe = *model->moe;
    const double dispatch_bytes = workload::fp8_token_bytes(model->hidden);
    const double combine_bytes = 2.0 * model->hidden;                        // BF16
    const double scale = double(tokens_per_gpu) / simulated_tokens_per_gpu;  // the flow model is linear in bytes
    for (int ep : ep_sizes) {
      net::FabricSpec spec = fabric;
      spec.nodes = ep / spec.gpus_per_node;
      // Validation routes and simulates nothing: the rows are named, their values not a number.
      std::optional<workload::DispatchTraffic> dispatch, combine;
      workload::DispatchStats stats{kNotRun, kNotRun, kNotRun, kNotRun};
      if (options.simulate) {
        const int tokens = simulated_tokens_per_gpu * ep;
        // Node-limited routing over the nodes the EP group has (at most the gate's M).
        workload::GateConfig gate{moe.routed_experts, moe.active_routed_experts, moe.groups,
                                  std::min(moe.groups_per_token, moe.groups), 2.5};
        const auto routing = workload::route_synthetic_tokens(tokens, workload::AffinitySkew::kUniform, 0, seed, gate,
                                                              std::vector<float>(moe.routed_experts, 0.0f));
        const workload::ExpertPlacement placement{ep, spec.gpus_per_node, moe.routed_experts};
        dispatch = workload::dispatch_traffic(routing, placement, dispatch_bytes);
        combine = workload::dispatch_traffic(routing, placement, combine_bytes);
        stats = workload::dispatch_stats(routing, placement);
      }
      for (const auto& k : kernels) {
        // The SMs' channels cap what each GPU's NIC and NVLink carry.
        net::FabricSpec driven = spec;
        driven.nic_Bps = k.ib_Bps(spec.nic_Bps);
        driven.nvlink_Bps = k.nvlink_Bps(spec.nvlink_Bps);
        double t_dispatch = kNotRun, t_combine = kNotRun, dispatch_bw = kNotRun, combine_bw = kNotRun;
        // As DeepEP prints it: (token, target node) pairs, the sender's own node counted too,
        // times one token's bytes, over the kernel's time (notes/kernels.md).
        double dispatch_logical = kNotRun, combine_logical = kNotRun;
        // "NVL" as DeepEP prints it: the bytes a GPU receives over NVLink, over the kernel's time.
        double dispatch_nvl = kNotRun, combine_nvl = kNotRun;
        if (options.simulate) {
          const net::FabricPlatform platform(driven);
          t_dispatch = core::simulate(platform, workload::dispatch_graph(*dispatch, scale, false)).makespan_s();
          t_combine = core::simulate(platform, workload::dispatch_graph(*combine, scale, true)).makespan_s();
          dispatch_bw = bytes_per_gpu(dispatch->ib, scale) / t_dispatch;
          combine_bw = bytes_per_gpu(combine->ib, scale) / t_combine;
          dispatch_logical = tokens_per_gpu * stats.nodes_per_token * dispatch_bytes / t_dispatch;
          combine_logical = tokens_per_gpu * stats.nodes_per_token * combine_bytes / t_combine;
          dispatch_nvl = bytes_per_gpu(dispatch->nvlink, scale) / t_dispatch;
          combine_nvl = bytes_per_gpu(combine->nvlink, scale) / t_combine;
        }
        const bool one = kernels.size() == 1;
        const std::string tag = "ep" + std::to_string(ep) + (one ? "" : "-sms" + std::to_string(k.sms));
        const std::string label = "EP" + std::to_string(ep) + " (" + std::to_string(spec.nodes) + " nodes" +
                                  (one ? "" : ", " + std::to_string(k.sms) + " SMs") + ")";
        // One node: DeepEP's intranode kernels, NVLink only; more: its internode kernels.
        const bool internode = spec.nodes > 1;
        if (internode) {
          r.rows.push_back({tag + "/dispatch_bw", label, "dispatch IB bandwidth per GPU", "GB/s", std::nullopt,
                            dispatch_bw / 1e9, Basis::kSimulated});
          r.rows.push_back({tag + "/combine_bw", label, "combine IB bandwidth per GPU", "GB/s", std::nullopt,
                            combine_bw / 1e9, Basis::kSimulated});
          r.rows.push_back({tag + "/dispatch_rdma_logical", label, "dispatch RDMA bandwidth as DeepEP counts it",
                            "GB/s", std::nullopt, dispatch_logical / 1e9, Basis::kSimulated});
          r.rows.push_back({tag + "/combine_rdma_logical", label, "combine RDMA bandwidth as DeepEP counts it", "GB/s",
                            std::nullopt, combine_logical / 1e9, Basis::kSimulated});
          if (&k == &kernels.front())  // the routing's, whatever drives it
            r.rows.push_back({tag + "/nvlink_per_ib", label, "NVLink forwards per IB copy", "", std::nullopt,
                              stats.nvlink_copies_per_token / stats.ib_copies_per_token, Basis::kSimulated});
        }
        r.rows.push_back({tag + "/dispatch_nvl_logical", label, "dispatch NVL bandwidth as DeepEP counts it", "GB/s",
                          std::nullopt, dispatch_nvl / 1e9, Basis::kSimulated});
        r.rows.push_back({tag + "/combine_nvl_logical", label, "combine NVL bandwidth as DeepEP counts it", "GB/s",
                          std::nullopt, combine_nvl / 1e9, Basis::kSimulated});
        r.rows.push_back(
            {tag + "/dispatch_time", label, "dispatch time", "us", std::nullopt, t_dispatch * 1e6, Basis::kSimulated});
        r.rows.push_back(
            {tag + "/combine_time", label, "combine time", "us", std::nullopt, t_combine * 1e6, Basis::kSimulated});
      }
    }
    r.notes.push_back(
        std::to_string(tokens_per_gpu) + " tokens per GPU of " + model->display_name + " (hidden " +
        std::to_string(model->hidden) + ", top-" + std::to_string(moe.active_routed_experts) + " of " +
        std::to_string(moe.routed_experts) +
        ", node-limited gate on uniform synthetic affinities), "
        "dispatch in FP8 with 128-element scales, combine in BF16, over a multi-plane fat tree with " +
        format_number(fabric.nic_Bps / 1e9) + " GB/s NICs and " + format_number(fabric.nvlink_Bps / 1e9) +
        " GB/s NVLink. The routing of " + std::to_string(simulated_tokens_per_gpu) +
        " tokens per GPU is simulated with its bytes scaled to the full count (the flow model is linear in bytes; "
        "no latency). IB bandwidth = the IB bytes a GPU sends / time; DeepEP's own figure counts every (token, target "
        "node) pair, the sender's node too, times a token's bytes, so it runs above the NIC's rate.");
    for (const auto& k : kernels)
      r.notes.push_back(k.offloaded()
                            ? "0 SMs: communication offloaded to hardware, links at full rate."
                            : std::to_string(k.sms) + " SMs in " + std::to_string(k.channels()) + " channels of " +
                                  format_number(k.ib_Bps_per_channel / 1e9) + " GB/s IB and " +
                                  format_number(k.nvlink_Bps_per_channel / 1e9) + " GB/s NVLink each drive " +
                                  format_number(k.ib_Bps(fabric.nic_Bps) / 1e9) + " GB/s IB and " +
                                  format_number(k.nvlink_Bps(fabric.nvlink_Bps) / 1e9) + " GB/s NVLink per GPU.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_moe_dispatch_study(core::JsonReader& root) {
  auto s = std::make_unique<MoeDispatchStudy>();
  s->model = &read_model(root);
  if (!s->model->moe)
    throw core::InputError(root.pointer_of("model"), "'" + s->model->name + "' is dense; dispatch needs an MoE model");
  core::JsonReader d = root.object("moe_dispatch");
  s->tokens_per_gpu = static_cast<int>(d.positive_integer("tokens_per_gpu", 4096, 1 << 20));
  s->simulated_tokens_per_gpu = static_cast<int>(d.positive_integer("simulated_tokens_per_gpu", 256, 1 << 20));
  s->seed = static_cast<std::uint64_t>(d.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  s->fabric.kind = net::FabricKind::kMultiPlane;
  s->fabric.routing = net::Routing::kDModK;
  s->fabric.nic_Bps = d.positive_number("nic_bandwidth_Bps", hw::default_node().nic_Bps);
  s->fabric.switch_link_Bps = s->fabric.nic_Bps;
  s->fabric.nvlink_Bps = d.positive_number("nvlink_bandwidth_Bps", hw::default_node().scale_up_achieved_Bps);
  // One SM count or several (a curve of bandwidth against SMs), in whole channels of two.
  std::vector<double> sms = {20};
  if (const auto* raw = d.raw("communication_sms"); raw && raw->is_array()) {
    sms = d.number_list("communication_sms", {0, 1024, true, 2, true});
    if (sms.size() > 64)
      throw core::InputError(
          d.pointer_of("communication_sms"),
          std::to_string(sms.size()) + " SM counts is not allowed; at most 64 (each simulates every EP size)");
  } else if (raw) {
    sms = {static_cast<double>(d.non_negative_integer("communication_sms", 20, 1024))};
  }
  // The channel rates, and the evenness of a single count (a list's entries are checked above).
  workload::CommKernels k = read_comm_kernels(d, static_cast<int>(sms.front()));
  for (double n : sms) {
    k.sms = static_cast<int>(n);
    s->kernels.push_back(k);
  }
  const int experts = s->model->moe->routed_experts;
  const auto eps = d.number_list("ep_sizes", {8, 256, true, 8, true});  // whole 8-GPU nodes
  for (std::size_t i = 0; i < eps.size(); ++i) {
    const int ep = static_cast<int>(eps[i]);
    if (experts % ep != 0)
      throw core::InputError(
          d.pointer_of("ep_sizes") + "/" + std::to_string(i),
          std::to_string(ep) + " is not allowed; the EP size must divide the " + std::to_string(experts) + " experts");
    s->ep_sizes.push_back(ep);
  }
  d.finish();
  const int largest_ep = *std::max_element(s->ep_sizes.begin(), s->ep_sizes.end());
  if (static_cast<long long>(s->simulated_tokens_per_gpu) * largest_ep > (1 << 18))
    throw core::InputError(d.pointer_of("simulated_tokens_per_gpu"),
                           std::to_string(s->simulated_tokens_per_gpu) + " is not allowed; x EP " +
                               std::to_string(largest_ep) +
                               " it routes more than 262,144 tokens (each with a score per expert held in memory)");
  return s;
}

}  // namespace studies
