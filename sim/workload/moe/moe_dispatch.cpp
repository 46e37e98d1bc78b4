#include "workload/moe/moe_dispatch.hpp"

#include <algorithm>

namespace workload {

namespace {

// Calls visit(source GPU, target node, GPUs reached on that node) for each target node of a token.
template <class Visit>
void for_each_target_node(const Routing& r, const ExpertPlacement& p, int token, std::vector<int>& scratch,
                          Visit visit) {
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
      for (int k = 0; k < r.top_k; ++k)
        experts_on_target_nodes += p.node_of_gpu(p.gpu_of_expert(r.expert(t, k))) == node;
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
  // Copies are counted per GPU pair, then scaled by the bytes. A token's repeats (two experts on
  // one GPU, two GPUs on one node) are caught by stamping each GPU and node with the last token
  // that reached it, which needs no sorting.
  const std::size_t n = static_cast<std::size_t>(p.gpus);
  std::vector<long long> ib(n * n, 0), nvlink(n * n, 0);
  std::vector<int> gpu_of(p.experts), gpu_seen(p.gpus, -1), node_seen(p.gpus / p.gpus_per_node + 1, -1);
  for (int e = 0; e < p.experts; ++e) gpu_of[e] = p.gpu_of_expert(e);
  for (int t = 0; t < r.tokens; ++t) {
    const int source = t % p.gpus, local = source % p.gpus_per_node, source_node = source / p.gpus_per_node;
    for (int k = 0; k < r.top_k; ++k) {
      const int gpu = gpu_of[r.expert(t, k)];
      if (gpu_seen[gpu] == t) continue;
      gpu_seen[gpu] = t;
      const int node = gpu / p.gpus_per_node, receiver = node * p.gpus_per_node + local;  // same in-node index
      if (node_seen[node] != t) {
        node_seen[node] = t;
        if (receiver != source) ++(node != source_node ? ib : nvlink)[source * n + receiver];
      }
      if (gpu != receiver) ++nvlink[receiver * n + gpu];
    }
  }
  DispatchTraffic d;
  d.ib.assign(n, std::vector<double>(n, 0.0));
  d.nvlink = d.ib;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      d.ib[i][j] = static_cast<double>(ib[i * n + j]) * bytes;
      d.nvlink[i][j] = static_cast<double>(nvlink[i * n + j]) * bytes;
    }
  return d;
}

std::vector<GpuTraffic> per_gpu_traffic(const DispatchTraffic& t) {
  const std::size_t n = t.ib.size();
  std::vector<GpuTraffic> out(n);
  for (std::size_t g = 0; g < n; ++g)
    for (std::size_t o = 0; o < n; ++o) {
      out[g].ib_sent += t.ib[g][o];
      out[g].ib_received += t.ib[o][g];
      out[g].nvlink_sent += t.nvlink[g][o];
      out[g].nvlink_received += t.nvlink[o][g];
    }
  return out;
}

void add_dispatch_copies(const std::vector<int>& experts, int top_k, int first, int last, const ExpertPlacement& p,
                         std::vector<GpuCopies>& copies) {
  // As dispatch_traffic, a token's repeats caught by stamping each GPU and node with it.
  std::vector<int> gpu_seen(p.gpus, -1), node_seen(p.gpus / p.gpus_per_node + 1, -1);
  const int per_gpu = p.experts_per_gpu();
  for (int t = first; t < last; ++t) {
    const int source = t % p.gpus, local = source % p.gpus_per_node, source_node = source / p.gpus_per_node;
    for (int k = 0; k < top_k; ++k) {
      const int gpu = experts[static_cast<std::size_t>(t) * top_k + k] / per_gpu;
      if (gpu_seen[gpu] == t) continue;
      gpu_seen[gpu] = t;
      const int node = gpu / p.gpus_per_node, receiver = node * p.gpus_per_node + local;
      if (node_seen[node] != t) {
        node_seen[node] = t;
        if (receiver != source) {
          const bool ib = node != source_node;
          ++(ib ? copies[source].ib_sent : copies[source].nvlink_sent);
          ++(ib ? copies[receiver].ib_received : copies[receiver].nvlink_received);
        }
      }
      if (gpu != receiver) ++copies[receiver].nvlink_sent, ++copies[gpu].nvlink_received;
    }
  }
}

void add_direct_copies(int token, const int* first, const int* last, int gpus, int gpus_per_node,
                       std::vector<GpuCopies>& copies) {
  const int source = token % gpus;
  for (const int* g = first; g != last; ++g) {
    if (*g == source) continue;
    const bool nvlink = *g / gpus_per_node == source / gpus_per_node;
    ++(nvlink ? copies[source].nvlink_sent : copies[source].ib_sent);
    ++(nvlink ? copies[*g].nvlink_received : copies[*g].ib_received);
  }
}

DispatchTraffic direct_traffic(const std::vector<std::vector<int>>& destinations, int gpus, int gpus_per_node,
                               double bytes) {
  DispatchTraffic d;
  d.ib.assign(gpus, std::vector<double>(gpus, 0.0));
  d.nvlink = d.ib;
  for (std::size_t t = 0; t < destinations.size(); ++t) {
    const int source = static_cast<int>(t % static_cast<std::size_t>(gpus));
    for (int g : destinations[t])
      if (g != source) (g / gpus_per_node == source / gpus_per_node ? d.nvlink : d.ib)[source][g] += bytes;
  }
  return d;
}

}  // namespace workload
