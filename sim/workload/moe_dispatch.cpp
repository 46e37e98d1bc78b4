#include "workload/moe_dispatch.hpp"

#include <algorithm>

namespace workload {

namespace {

// Calls visit(source GPU, target node, GPUs reached on that node) for each target node of a token.
template <class Visit>
void for_each_target_node(const Routing& r, const ExpertPlacement& p, int token, std::vector<int>& scratch, Visit visit) {
  const int source = token % p.gpus;
  // The token's GPUs, deduplicated and grouped by node (top_k is small: sort them).
  scratch.clear();
  for (int k = 0; k < r.top_k; ++k) scratch.push_back(p.gpu_of_expert(r.expert(token, k)));
  std::sort(scratch.begin(), scratch.end());
  scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
  std::size_t begin = 0;
  while (begin < scratch.size()) {
    const int node = p.node_of_gpu(scratch[begin]);
    std::size_t end = begin;
    while (end < scratch.size() && p.node_of_gpu(scratch[end]) == node) ++end;
    visit(source, node, scratch.data() + begin, scratch.data() + end);
    begin = end;
  }
}

}  // namespace

DispatchStats dispatch_stats(const Routing& r, const ExpertPlacement& p) {
  DispatchStats s;
  std::vector<int> gpus;
  double experts_on_target_nodes = 0;
  for (int t = 0; t < r.tokens; ++t)
    for_each_target_node(r, p, t, gpus, [&](int source, int node, const int* first, const int* last) {
      s.nodes_per_token += 1;
      for (int k = 0; k < r.top_k; ++k) experts_on_target_nodes += p.node_of_gpu(p.gpu_of_expert(r.expert(t, k))) == node;
      s.ib_copies_per_token += node != p.node_of_gpu(source);
      const int receiver = node * p.gpus_per_node + source % p.gpus_per_node;  // same in-node index
      for (const int* g = first; g != last; ++g) s.nvlink_copies_per_token += *g != receiver;
    });
  s.experts_per_node = experts_on_target_nodes / s.nodes_per_token;
  s.nodes_per_token /= r.tokens;
  s.ib_copies_per_token /= r.tokens;
  s.nvlink_copies_per_token /= r.tokens;
  return s;
}

DispatchTraffic dispatch_traffic(const Routing& r, const ExpertPlacement& p, double bytes) {
  DispatchTraffic d;
  d.ib.assign(p.gpus, std::vector<double>(p.gpus, 0.0));
  d.nvlink = d.ib;
  std::vector<int> gpus;
  for (int t = 0; t < r.tokens; ++t)
    for_each_target_node(r, p, t, gpus, [&](int source, int node, const int* first, const int* last) {
      const int receiver = node * p.gpus_per_node + source % p.gpus_per_node;
      if (receiver != source) (p.node_of_gpu(receiver) != p.node_of_gpu(source) ? d.ib : d.nvlink)[source][receiver] += bytes;
      for (const int* g = first; g != last; ++g)
        if (*g != receiver) d.nvlink[receiver][*g] += bytes;
    });
  return d;
}

DispatchTraffic direct_traffic(const std::vector<std::vector<int>>& destinations, int gpus, int gpus_per_node,
                               double bytes) {
  DispatchTraffic d;
  d.ib.assign(gpus, std::vector<double>(gpus, 0.0));
  d.nvlink = d.ib;
  std::vector<int> targets;
  for (std::size_t t = 0; t < destinations.size(); ++t) {
    const int source = static_cast<int>(t % static_cast<std::size_t>(gpus));
    targets = destinations[t];
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    for (int g : targets)
      if (g != source) (g / gpus_per_node == source / gpus_per_node ? d.nvlink : d.ib)[source][g] += bytes;
  }
  return d;
}

}  // namespace workload
