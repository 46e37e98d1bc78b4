#include "studies/network/study_moe_routing.hpp"

#include <algorithm>
#include <numeric>

#include "core/input_error.hpp"
#include "studies/config/affinity_config.hpp"
#include "studies/config/cluster_config.hpp"
#include "studies/config/model_config.hpp"
#include "workload/model/model.hpp"
#include "workload/moe/moe_dispatch.hpp"
#include "workload/moe/moe_gate.hpp"
#include "workload/moe/redundant_experts.hpp"
#include "workload/moe/routing_file.hpp"

namespace studies {

namespace {

double imbalance(const std::vector<int>& load) {
  const double mean = std::accumulate(load.begin(), load.end(), 0.0) / static_cast<double>(load.size());
  return *std::max_element(load.begin(), load.end()) / mean;
}

class MoeRoutingStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  ClusterConfig cluster;
  int ep_gpus = 64;
  int tokens = 16384;
  workload::AffinitySkew skew = workload::AffinitySkew::kHotExperts;
  double skew_strength = 1.5;
  int balance_steps = 50;
  double gamma = 0.001;
  std::uint64_t seed = 1;
  workload::GateConfig gate;                   // the model's, or the scenario's overrides
  std::optional<workload::Routing> from_file;  // recorded routing decisions
  std::string routing_file;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    // Validation routes a handful of tokens, once, to build the rows, and reports none of them.
    const int routed = options.simulate ? tokens : std::min(tokens, 256);
    const int steps = options.simulate ? balance_steps : 0;
    const auto& moe = *model->moe;
    const workload::GateConfig limited = gate;
    workload::GateConfig unrestricted = limited;
    unrestricted.groups = 1;
    unrestricted.groups_per_token = 1;
    const workload::ExpertPlacement placement{ep_gpus, cluster.cluster.gpus_per_node, moe.routed_experts};
    const double token_bytes = workload::fp8_token_bytes(model->hidden);

    const auto uniform =
        workload::synthetic_affinities(routed, moe.routed_experts, workload::AffinitySkew::kUniform, 0, seed);
    const std::vector<float> no_bias(moe.routed_experts, 0.0f);
    const auto with_limit =
        workload::dispatch_stats(workload::route_tokens(uniform, routed, limited, no_bias), placement);
    const auto without =
        workload::dispatch_stats(workload::route_tokens(uniform, routed, unrestricted, no_bias), placement);
    const std::string m = std::to_string(gate.groups_per_token);
    for (const auto& [tag, label, s] :
         {std::tuple{"limited", "node-limited (M = " + m + ")", with_limit},
          std::tuple{"unrestricted", std::string("unrestricted top-") + std::to_string(gate.top_k), without}}) {
      r.rows.push_back({std::string(tag) + "/nodes_per_token", label, "nodes per token", "", std::nullopt,
                        s.nodes_per_token, Basis::kSimulated});
      r.rows.push_back({std::string(tag) + "/experts_per_node", label, "experts per target node", "", std::nullopt,
                        s.experts_per_node, Basis::kSimulated});
      r.rows.push_back({std::string(tag) + "/ib_bytes_per_token", label, "IB bytes per token (dispatch)", "KB",
                        std::nullopt, s.ib_copies_per_token * token_bytes / 1e3, Basis::kSimulated});
      r.rows.push_back({std::string(tag) + "/nvlink_copies_per_token", label, "NVLink forwards per token", "",
                        std::nullopt, s.nvlink_copies_per_token, Basis::kSimulated});
    }
    // Forwarding over NVLink stays hidden behind IB while a node forwards each arriving token to
    // no more GPUs than NVLink is faster than IB.
    const double ratio = cluster.cluster.scale_up_Bps / cluster.cluster.scale_out_Bps;
    r.rows.push_back({"nvlink_over_ib", "NVLink / IB bandwidth per GPU", "experts per node at no extra cost", "",
                      std::nullopt, ratio, Basis::kInput});
    r.rows.push_back({"max_experts_same_cost", "experts per token at the same IB cost", "M x NVLink/IB", "",
                      std::nullopt, gate.groups_per_token * ratio, Basis::kInput});
    if (from_file) {
      const auto s = workload::dispatch_stats(*from_file, placement);
      const std::string label = "routing file (" + std::to_string(from_file->tokens) + " tokens)";
      r.rows.push_back(
          {"file/nodes_per_token", label, "nodes per token", "", std::nullopt, s.nodes_per_token, Basis::kSimulated});
      r.rows.push_back({"file/experts_per_node", label, "experts per target node", "", std::nullopt, s.experts_per_node,
                        Basis::kSimulated});
      r.rows.push_back({"file/ib_bytes_per_token", label, "IB bytes per token (dispatch)", "KB", std::nullopt,
                        s.ib_copies_per_token * token_bytes / 1e3, Basis::kSimulated});
      r.rows.push_back({"file/imbalance", label, "expert load max / mean", "", std::nullopt,
                        imbalance(workload::expert_load(*from_file, moe.routed_experts)), Basis::kSimulated});
      r.notes.push_back("Routing file: " + routing_file + "; its tokens sit on GPU (token index mod EP size).");
    }

    // Load balance: skewed affinities, no bias, then the bias updated after every step.
    const auto skewed = workload::synthetic_affinities(routed, moe.routed_experts, skew, skew_strength, seed + 1);
    std::vector<float> bias(moe.routed_experts, 0.0f);
    const double before =
        imbalance(workload::expert_load(workload::route_tokens(skewed, routed, limited, bias), moe.routed_experts));
    for (int step = 0; step < steps; ++step)
      workload::update_bias(
          bias, workload::expert_load(workload::route_tokens(skewed, routed, limited, bias), moe.routed_experts),
          static_cast<float>(gamma));
    const double after =
        imbalance(workload::expert_load(workload::route_tokens(skewed, routed, limited, bias), moe.routed_experts));
    r.rows.push_back({"imbalance/no_bias", "expert load, skewed affinities, no bias", "max / mean", "", std::nullopt,
                      before, Basis::kSimulated});
    // The same skewed load per GPU, without and with one redundant expert per GPU inside each node.
    const auto skewed_load =
        workload::expert_load(workload::route_tokens(skewed, routed, limited, no_bias), moe.routed_experts);
    r.rows.push_back({"gpu_imbalance/no_bias", "GPU load, skewed affinities, no bias", "max / mean", "", std::nullopt,
                      workload::max_over_mean(workload::gpu_load_with_redundancy(skewed_load, placement, 0)),
                      Basis::kSimulated});
    r.rows.push_back(
        {"gpu_imbalance/redundant", "GPU load, + 1 redundant expert per GPU (in-node)", "max / mean", "", std::nullopt,
         workload::max_over_mean(workload::gpu_load_with_redundancy(skewed_load, placement, 1)), Basis::kSimulated});
    r.rows.push_back(
        {"imbalance/bias",
         "expert load after " + std::to_string(balance_steps) + " bias updates (gamma " + format_number(gamma) + ")",
         "max / mean", "", std::nullopt, after, Basis::kSimulated});
    r.notes.push_back(model->display_name + " gate (" + std::to_string(moe.routed_experts) + " experts in " +
                      std::to_string(moe.groups) + " groups, top-" + std::to_string(moe.active_routed_experts) +
                      ") on " + std::to_string(tokens) + " tokens of seeded synthetic affinities over EP" +
                      std::to_string(ep_gpus) + " (" + std::to_string(ep_gpus / cluster.cluster.gpus_per_node) +
                      " nodes, one group per node); a token crosses IB once per remote target node and is forwarded "
                      "over NVLink inside it. The NVLink/IB ratio comes from the cluster's node data (achieved NVLink "
                      "over NIC bandwidth).");
    if (!options.simulate)
      for (auto& row : r.rows)
        if (row.basis == Basis::kSimulated) row.ours = kNotRun;
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_moe_routing_study(core::JsonReader& root) {
  auto s = std::make_unique<MoeRoutingStudy>();
  s->model = &read_model(root);
  if (!s->model->moe)
    throw core::InputError(root.pointer_of("model"),
                           "'" + s->model->name + "' is dense; MoE routing needs an MoE model");
  s->cluster = parse_cluster(root.object("cluster"));
  core::JsonReader m = root.object("moe_routing");
  s->ep_gpus = static_cast<int>(m.positive_integer("ep_gpus", 4096));
  s->tokens = static_cast<int>(m.positive_integer("tokens", 16384, 1 << 18));
  const auto affinity = parse_affinity(m, "hot-experts", 1.5);
  s->skew = affinity.skew;
  s->skew_strength = affinity.strength;
  s->balance_steps = static_cast<int>(m.non_negative_integer("balance_steps", 50, 10000));
  s->gamma = m.non_negative_number("gamma", 0.001);
  s->seed = static_cast<std::uint64_t>(m.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  const auto& moe = *s->model->moe;
  // The gate: the model's, with optional overrides, checked so that every token can be routed.
  auto& g = s->gate;
  g = {moe.routed_experts, moe.active_routed_experts, moe.groups, moe.groups_per_token, 2.5};
  if (auto o = m.optional_object("gate")) {
    g.top_k = static_cast<int>(o->positive_integer("top_k", g.top_k, 1 << 16));
    g.groups = static_cast<int>(o->positive_integer("groups", g.groups, 1 << 16));
    g.groups_per_token = static_cast<int>(o->positive_integer("groups_per_token", g.groups_per_token, 1 << 16));
    if (g.top_k > g.experts)
      throw core::InputError(o->pointer_of("top_k"), std::to_string(g.top_k) + " is not allowed; the model has " +
                                                         std::to_string(g.experts) + " routed experts");
    if (g.experts % g.groups != 0)
      throw core::InputError(o->pointer_of("groups"), std::to_string(g.groups) + " does not divide the " +
                                                          std::to_string(g.experts) + " routed experts");
    if (g.groups_per_token > g.groups)
      throw core::InputError(
          o->pointer_of("groups_per_token"),
          std::to_string(g.groups_per_token) + " is more than the " + std::to_string(g.groups) + " groups");
    if (g.top_k > g.groups_per_token * (g.experts / g.groups))
      throw core::InputError(o->pointer_of("top_k"), std::to_string(g.top_k) + " is not allowed; " +
                                                         std::to_string(g.groups_per_token) + " groups of " +
                                                         std::to_string(g.experts / g.groups) + " experts hold fewer");
    o->finish();
  }
  if (auto file = m.optional_string("routing_file")) {
    s->routing_file = *file;
    s->from_file = workload::read_routing_file(*file, g.experts, g.top_k);
  }
  m.finish();
  const int gpn = s->cluster.cluster.gpus_per_node;
  if (s->ep_gpus % gpn != 0 || moe.routed_experts % s->ep_gpus != 0)
    throw core::InputError(m.pointer_of("ep_gpus"), std::to_string(s->ep_gpus) +
                                                        " is not allowed; the EP group must be whole nodes of " +
                                                        std::to_string(gpn) + " GPUs and divide the " +
                                                        std::to_string(moe.routed_experts) + " experts evenly");
  if (s->ep_gpus / gpn != moe.groups)
    throw core::InputError(m.pointer_of("ep_gpus"),
                           std::to_string(s->ep_gpus) + " is not allowed; node-limited routing maps each of the " +
                               std::to_string(moe.groups) + " expert groups to one node, so EP must span " +
                               std::to_string(moe.groups) + " nodes (" + std::to_string(moe.groups * gpn) + " GPUs)");
  return s;
}

}  // namespace studies
