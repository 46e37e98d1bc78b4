#include "workload/data_parallel_sync.hpp"

#include <optional>

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

}  // namespace

DataParallelTimes data_parallel_times(const DataParallelSetup& s, const Roofline& roofline) {
  const auto& par = s.parallelism;
  const int gpn = par.gpus_per_node;
  const int nodes = par.gpus / gpn;
  const int stage_nodes = nodes / par.pp;
  const int ep_nodes = par.ep / gpn;
  net::FabricSpec spec = s.fabric;
  spec.nodes = nodes;

  RingSet in_node{{}, spec.nvlink_Bps}, across_nodes{{}, spec.nic_Bps}, experts{{}, spec.nic_Bps};
  for (int n = 0; n < nodes; ++n) {
    net::Ring ring;
    for (int g = 0; g < gpn; ++g) ring.push_back(n * gpn + g);
    in_node.rings.push_back(ring);
  }
  for (int stage = 0; stage < par.pp; ++stage)
    for (int g = 0; g < gpn; ++g) {
      net::Ring ring;
      for (int n = 0; n < stage_nodes; ++n) ring.push_back((stage * stage_nodes + n) * gpn + g);
      across_nodes.rings.push_back(ring);
      for (int first = 0; first < ep_nodes; ++first) {  // the replicas of the experts on node `first` of each EP group
        net::Ring replicas;
        for (int n = first; n < stage_nodes; n += ep_nodes) replicas.push_back((stage * stage_nodes + n) * gpn + g);
        experts.rings.push_back(replicas);
      }
    }

  const double dense_gradients = s.parameters.dense * s.optimizer.gradient_bytes;
  const double expert_gradients = s.parameters.expert * s.optimizer.gradient_bytes;
  const double to_weights = s.optimizer.parameter_bytes / s.optimizer.gradient_bytes;
  std::optional<net::FabricPlatform> platform;  // built only for flow mode: 2048 GPUs take a second
  if (s.flow) platform.emplace(spec);
  auto phase_s = [&](const RingSet& set, double size) {
    if (set.rings.front().size() < 2 || size <= 0) return 0.0;
    if (!s.flow) return closed_form_s(set, size);
    return core::simulate(*platform, net::ring_graph(set.rings, size)).makespan_s();
  };
  auto sync_s = [&](double scale) {
    return phase_s(in_node, dense_gradients * scale) + phase_s(across_nodes, dense_gradients * scale / gpn) +
           phase_s(experts, expert_gradients * scale);
  };
  DataParallelTimes t;
  t.reduce_scatter_s = sync_s(1.0);
  t.all_gather_s = sync_s(to_weights);
  const double shard = s.parameters.dense / par.dp() + s.parameters.expert / par.expert_dp();
  t.optimizer_s = roofline.memory_s(shard * s.optimizer.state_bytes_per_parameter);
  return t;
}

}  // namespace workload
