#include "workload/moe/ep_comm.hpp"

#include <algorithm>
#include <numeric>

#include "core/engine.hpp"
#include "workload/moe/routing_memo.hpp"
#include "workload/parallel/rank_grid.hpp"

namespace workload {

void add_dispatch(core::TaskGraph& g, const DispatchTraffic& t, double scale, bool reverse,
                  const std::vector<int>& ranks, std::vector<core::TaskId>& tasks) {
  const int n = static_cast<int>(t.ib.size());
  auto rank = [&](int local) { return ranks.empty() ? local : ranks[static_cast<std::size_t>(local)]; };
  for (const auto* stage : {&t.ib, &t.nvlink})
    for (int sender = 0; sender < n; ++sender) {
      std::vector<core::Flow> flows;
      for (int other = 0; other < n; ++other) {
        const double bytes = (reverse ? (*stage)[other][sender] : (*stage)[sender][other]) * scale;
        if (bytes > 0) flows.push_back({rank(sender), rank(other), bytes});
      }
      if (!flows.empty())
        tasks.push_back(g.add_transfer(stage == &t.ib ? "IB" : "NVLink", rank(sender), stage == &t.ib ? "ib" : "nvlink",
                                       std::move(flows), {}));
    }
}

core::TaskGraph dispatch_graph(const DispatchTraffic& t, double scale, bool reverse) {
  core::TaskGraph g;
  std::vector<core::TaskId> all;
  add_dispatch(g, t, scale, reverse, {}, all);
  g.add_join("done", all);
  return g;
}

double dispatch_bound_s(const DispatchTraffic& t, double scale, double ib_Bps, double nvlink_Bps) {
  double worst = 0;
  for (const GpuTraffic& g : per_gpu_traffic(t))
    worst = std::max({worst, std::max(g.ib_sent, g.ib_received) * scale / ib_Bps,
                      std::max(g.nvlink_sent, g.nvlink_received) * scale / nvlink_Bps});
  return worst;
}

EpTraffic expert_parallel_traffic(const EpCommSetup& s) {
  const Model& model = *s.model;
  const Moe& moe = *model.moe;
  const bool whole_fabric = s.flow && !s.groups.empty();
  EpTraffic out;
  out.groups = whole_fabric ? s.groups : std::vector<std::vector<int>>{{}};
  if (!whole_fabric) {
    out.groups[0].resize(static_cast<std::size_t>(s.ep));
    std::iota(out.groups[0].begin(), out.groups[0].end(), 0);
  }
  const int groups = static_cast<int>(out.groups.size());
  const int tokens = s.simulated_tokens_per_gpu * s.ep;
  const GateConfig gate{moe.routed_experts, moe.active_routed_experts, moe.groups,
                        std::min(moe.groups_per_token, moe.groups), 2.5};
  const int members_per_node =
      whole_fabric ? RankGrid::members_per_node(s.groups[0], s.fabric.gpus_per_node) : s.fabric.gpus_per_node;
  const ExpertPlacement placement{s.ep, members_per_node, moe.routed_experts};
  const double bf16_bytes = 2.0 * model.hidden;
  const double dispatch_bytes = s.fp8_dispatch ? fp8_token_bytes(model.hidden) : bf16_bytes;
  out.scale = double(s.tokens_per_gpu) / s.simulated_tokens_per_gpu;  // the flow model is linear in bytes

  // Groups route their own tokens (seed + index) so that their loads differ as real
  // micro-batches do, and the slowest sets the layer's time. Routing is most of the cost (a
  // 2,048-GPU cluster has 32 groups of 16K simulated tokens), so four draws are taken and the
  // groups cycle through them: every group's traffic is on the fabric, four distinct loads.
  constexpr int kDistinctRoutings = 4;
  for (int g = 0; g < std::min(groups, kDistinctRoutings); ++g) {
    const auto kept = kept_synthetic_routing(tokens, s.affinity.skew, s.affinity.strength, s.seed + g, gate,
                                             std::vector<float>(moe.routed_experts, 0.0f));
    const Routing& routing = *kept;
    out.forward.push_back(dispatch_traffic(routing, placement, dispatch_bytes));
    out.gradients.push_back(dispatch_traffic(routing, placement, bf16_bytes));
    if (g > 0) continue;
    std::vector<double> per_gpu(static_cast<std::size_t>(s.ep), 0.0);
    const auto load = expert_load(routing, moe.routed_experts);
    for (int e = 0; e < moe.routed_experts; ++e) per_gpu[placement.gpu_of_expert(e)] += load[e];
    const double mean = std::accumulate(per_gpu.begin(), per_gpu.end(), 0.0) / s.ep;
    out.expert_imbalance = *std::max_element(per_gpu.begin(), per_gpu.end()) / mean;
  }
  return out;
}

EpCommTimes expert_parallel_comm(const EpCommSetup& s) { return expert_parallel_comm(s, expert_parallel_traffic(s)); }

EpCommTimes expert_parallel_comm(const EpCommSetup& s, const EpTraffic& traffic) {
  net::FabricSpec spec = s.fabric;
  if (!(s.flow && !s.groups.empty())) spec.nodes = s.ep / spec.gpus_per_node;  // one group on a fabric of its own
  const double scale = traffic.scale;
  const std::size_t groups = traffic.groups.size();
  EpCommTimes out;
  out.group_op_s.assign(groups, {});
  auto group_s = [&](std::size_t g, EpOp op) -> double& { return out.group_op_s[g][static_cast<std::size_t>(op)]; };
  // Each group's time (its transfers' last end) of one op; the slowest's is the op's.
  auto time = [&](const std::vector<DispatchTraffic>& t, bool reverse, EpOp op) {
    if (!s.flow)
      return group_s(0, op) = dispatch_bound_s(t[0], scale, spec.nic_Bps, spec.nvlink_Bps);  // symmetric in direction
    const net::FabricPlatform platform(spec);
    core::TaskGraph graph;
    std::vector<core::TaskId> all;
    std::vector<std::size_t> first_task(groups + 1, 0);
    for (std::size_t g = 0; g < groups; ++g) {
      first_task[g] = all.size();
      add_dispatch(graph, t[g % t.size()], scale, reverse, traffic.groups[g], all);
    }
    first_task[groups] = all.size();
    graph.add_join("done", all);
    const auto timeline = core::simulate(platform, graph);
    for (std::size_t g = 0; g < groups; ++g) {
      double end_s = 0;
      for (std::size_t k = first_task[g]; k < first_task[g + 1]; ++k)
        end_s = std::max(end_s, timeline.span(all[k]).end_s);
      group_s(g, op) = end_s;
    }
    return timeline.makespan_s();
  };
  out.dispatch_forward_s = time(traffic.forward, false, EpOp::kDispatchForward);
  out.combine_forward_s = time(traffic.gradients, true, EpOp::kCombineForward);
  // The gradients retrace the same routes: combine's backward the dispatch's way in the
  // dispatch's precision (the FP8 recipe casts the gradient before the MoE down-projections:
  // report §3.3.3; DeepSeek's profile sends it with DeepEP's dispatch kernel after a per-token
  // FP8 cast), dispatch's backward the combine's way in BF16.
  out.combine_backward_s = out.dispatch_forward_s;
  for (std::size_t g = 0; g < groups; ++g) group_s(g, EpOp::kCombineBackward) = group_s(g, EpOp::kDispatchForward);
  out.dispatch_backward_s = out.combine_forward_s;
  for (std::size_t g = 0; g < groups; ++g) group_s(g, EpOp::kDispatchBackward) = group_s(g, EpOp::kCombineForward);
  out.groups_simulated = static_cast<int>(groups);
  out.expert_imbalance = traffic.expert_imbalance;
  double ib = 0;
  for (const auto& row : traffic.forward[0].ib) ib += std::accumulate(row.begin(), row.end(), 0.0);
  out.ib_bytes_per_gpu_dispatch = ib * scale / s.ep;
  return out;
}

const std::array<EpOp, 4>& ep_ops() {
  static const std::array<EpOp, 4> ops = {EpOp::kDispatchForward, EpOp::kCombineForward, EpOp::kCombineBackward,
                                          EpOp::kDispatchBackward};
  return ops;
}

const char* ep_op_name(EpOp op) {
  static const char* const names[] = {"dispatch(F)", "combine(F)", "combine(B)", "dispatch(B)"};
  return names[static_cast<std::size_t>(op)];
}

OpFlows ep_op_flows(const EpTraffic& t, std::size_t group, int local, EpOp op, bool recompute) {
  const auto& ranks = t.groups.at(group);
  OpFlows flows;
  // One matrix in one direction: the row of `local` (its sends), or its column (reversed); a
  // rerun adds to the same pairs.
  auto add = [&](const DispatchTraffic& m, bool reverse) {
    const auto l = static_cast<std::size_t>(local);
    for (auto [stage, out] : {std::pair{&m.ib, &flows.ib}, std::pair{&m.nvlink, &flows.nvlink}})
      for (std::size_t other = 0; other < ranks.size(); ++other) {
        const double bytes = (reverse ? (*stage)[other][l] : (*stage)[l][other]) * t.scale;
        if (!(bytes > 0)) continue;
        auto it =
            std::find_if(out->begin(), out->end(), [&](const core::Flow& f) { return f.dst_rank == ranks[other]; });
        if (it == out->end())
          out->push_back({ranks[l], ranks[other], bytes});
        else
          it->bytes += bytes;
      }
  };
  const auto& forward = t.forward_of(group);
  const auto& gradients = t.gradients_of(group);
  switch (op) {
    case EpOp::kDispatchForward:
      add(forward, false);
      break;
    case EpOp::kCombineForward:
      add(gradients, true);
      break;
    case EpOp::kCombineBackward:
      add(forward, false);
      if (recompute) add(gradients, true);  // the rerun forward's combine
      break;
    case EpOp::kDispatchBackward:
      add(gradients, true);
      if (recompute) add(forward, false);  // the rerun forward's dispatch
      break;
  }
  return flows;
}

}  // namespace workload
