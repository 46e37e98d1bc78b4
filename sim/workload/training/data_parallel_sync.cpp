#include "workload/training/data_parallel_sync.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "core/engine.hpp"
#include "net/ring.hpp"

namespace workload {

namespace {

struct RingSet {
  std::vector<net::Ring> rings;
  double bandwidth_Bps = 0;  // of the links a ring step crosses
};

// A ring's reduce-scatter (or all-gather) of `size` bytes per rank: n - 1 steps of size / n.
double closed_form_s(const RingSet& set, double size) {
  const double n = double(set.rings.front().size());
  return (n - 1) / n * size / set.bandwidth_Bps;
}

// A group's hierarchical rings: inside each node, then across nodes (one ring per in-node
// index, carrying 1 / members-per-node of the bytes).
struct Hierarchy {
  RingSet in_node, across_nodes;
  int per_node = 1;
};

Hierarchy hierarchy(const std::vector<std::vector<int>>& groups, int gpus_per_node, const net::FabricSpec& f) {
  Hierarchy h{{{}, f.nvlink_Bps}, {{}, f.nic_Bps}, 1};
  for (const auto& group : groups) {
    std::map<int, net::Ring> by_node;
    for (int r : group) by_node[r / gpus_per_node].push_back(r);
    h.per_node = static_cast<int>(by_node.begin()->second.size());
    for (const auto& [node, ring] : by_node) h.in_node.rings.push_back(ring);
    for (int i = 0; i < h.per_node; ++i) {
      net::Ring across;
      for (const auto& [node, ring] : by_node) across.push_back(ring[static_cast<std::size_t>(i)]);
      h.across_nodes.rings.push_back(across);
    }
  }
  return h;
}

// The optimizer step of one GPU: every parameter it holds (ZeRO 0), else its shard.
double optimizer_s(const DataParallelSetup& s, const Roofline& roofline) {
  const auto& par = s.parallelism;
  const double held = par.zero == 0 ? s.parameters.dense + s.parameters.expert
                                    : s.parameters.dense / par.dense_dp() + s.parameters.expert / par.expert_dp();
  return roofline.memory_s(held * s.optimizer.state_bytes_per_parameter);
}

}  // namespace

DataParallelTimes data_parallel_times(const DataParallelSetup& s, const Roofline& roofline) {
  const auto& par = s.parallelism;
  if (s.flow) {
    // Every group at once on the whole fabric: the phases as a step graph would run them, from
    // the start, every GPU having nothing before them.
    net::FabricSpec spec = s.fabric;
    spec.nodes = par.gpus / par.gpus_per_node;
    core::TaskGraph g;
    std::vector<int> gpus(static_cast<std::size_t>(par.gpus));
    std::iota(gpus.begin(), gpus.end(), 0);
    const std::vector<core::TaskId> ready(gpus.size(), g.add_join("step done", {}));
    const auto tasks = append_data_parallel_sync(g, s, roofline, gpus, ready, ready);
    return tasks.times(core::simulate(net::FabricPlatform(spec), g));
  }
  // The closed form needs one group of each kind (all are alike).
  const Hierarchy dense =
      hierarchy({par.attention_grid().group_of(0, par.dense_dp_dims())}, par.gpus_per_node, s.fabric);
  const Hierarchy experts = hierarchy({par.expert_grid().group_of(0, {"dp"})}, par.gpus_per_node, s.fabric);
  auto phase_s = [](const RingSet& set, double size) {
    return set.rings.empty() || set.rings.front().size() < 2 || size <= 0 ? 0.0 : closed_form_s(set, size);
  };
  // One pass of reduce-scatter (or all-gather) of `bytes_per_parameter` over both groups.
  auto sync_s = [&](double bytes_per_parameter) {
    double t = 0;
    for (const auto& [h, parameters] :
         {std::pair{&dense, s.parameters.dense}, std::pair{&experts, s.parameters.expert}}) {
      const double size = parameters * bytes_per_parameter;
      t += phase_s(h->in_node, size) + phase_s(h->across_nodes, size / h->per_node);
    }
    return t;
  };
  DataParallelTimes t;
  const auto& o = s.optimizer;
  t.reduce_scatter_s = sync_s(o.gradient_bytes);
  t.optimizer_s = optimizer_s(s, roofline);
  // ZeRO 0 all-reduces: the reduce-scatter, then the reduced gradients all-gathered.
  t.all_gather_s = par.zero == 0 ? sync_s(o.gradient_bytes) : sync_s(o.parameter_bytes) * (par.zero == 3 ? 2 : 1);
  return t;
}

DataParallelTimes DataParallelTasks::times(const core::Timeline& timeline) const {
  DataParallelTimes t;
  double previous = timeline.span(start).end_s;
  for (const auto& [phase, id] : phases) {
    const double end = timeline.span(id).end_s;
    if (phase == DataParallelPhase::kReduceScatter) t.reduce_scatter_s += end - previous;
    if (phase == DataParallelPhase::kAllGather) t.all_gather_s += end - previous;
    previous = end;
  }
  t.optimizer_s = optimizer_s;
  return t;
}

DataParallelTasks append_data_parallel_sync(core::TaskGraph& g, const DataParallelSetup& s, const Roofline& roofline,
                                            const std::vector<int>& gpus,
                                            const std::vector<core::TaskId>& gradients_ready,
                                            const std::vector<core::TaskId>& last_step) {
  const auto& par = s.parallelism;
  const std::set<int> here(gpus.begin(), gpus.end());
  auto groups = [&](const RankGrid& grid, const std::vector<std::string>& dims) {
    std::vector<std::vector<int>> out;
    for (auto& group : grid.groups(dims))
      if (here.count(group.front())) out.push_back(std::move(group));
    return out;
  };
  const Hierarchy dense = hierarchy(groups(par.attention_grid(), par.dense_dp_dims()), par.gpus_per_node, s.fabric);
  const Hierarchy experts = hierarchy(groups(par.expert_grid(), {"dp"}), par.gpus_per_node, s.fabric);

  DataParallelTasks out;
  out.start = g.add_join("gradients ready", gradients_ready);
  auto sync = [&](DataParallelPhase phase, double bytes_per_parameter) {
    core::TaskId last = out.end();
    for (const auto& [h, parameters] :
         {std::pair{&dense, s.parameters.dense}, std::pair{&experts, s.parameters.expert}}) {
      const double size = parameters * bytes_per_parameter;
      if (h->in_node.rings.empty() || size <= 0) continue;
      last = net::append_ring(g, h->in_node.rings, size, 1, {last});
      last = net::append_ring(g, h->across_nodes.rings, size / h->per_node, 1, {last});
    }
    out.phases.push_back({phase, last});
  };
  const auto& o = s.optimizer;
  sync(DataParallelPhase::kReduceScatter, o.gradient_bytes);
  if (par.zero == 0) sync(DataParallelPhase::kAllGather, o.gradient_bytes);
  if (par.zero == 3) sync(DataParallelPhase::kAllGather, o.parameter_bytes);  // the backward's weights
  out.optimizer_s = optimizer_s(s, roofline);
  std::vector<core::TaskId> stepped;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    stepped.push_back(g.add_compute("optimizer", gpus[i], "compute", out.optimizer_s, {out.end(), last_step[i]}));
  out.phases.push_back({DataParallelPhase::kOptimizer, g.add_join("optimizer done", stepped)});
  if (par.zero > 0) sync(DataParallelPhase::kAllGather, o.parameter_bytes);
  return out;
}

double exposed_data_parallel_s(const DataParallelTimes& t, int zero, bool overlap, double forward_s,
                               double backward_s) {
  if (!overlap) return t.total();
  auto beyond = [](double comm_s, double behind_s) { return std::max(0.0, comm_s - behind_s); };
  if (zero == 0) return beyond(t.reduce_scatter_s + t.all_gather_s, backward_s) + t.optimizer_s;
  const double gather_forward = zero == 3 ? t.all_gather_s / 2 : t.all_gather_s;
  const double gather_backward = t.all_gather_s - gather_forward;
  return beyond(t.reduce_scatter_s + gather_backward, backward_s) + t.optimizer_s + beyond(gather_forward, forward_s);
}

}  // namespace workload
