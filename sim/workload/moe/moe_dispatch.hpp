#pragma once
// What a routing decision costs the network, as DeepSeek's dispatch kernels send it (V3 report
// §3.2.2): a token goes over IB once to each target node other than its own, to the GPU with its
// own in-node index there, and is then forwarded over NVLink to each GPU of that node that holds
// one of its experts (once per GPU, however many of its experts the GPU holds).
#include <vector>

#include "workload/model/layer_cost.hpp"
#include "workload/moe/moe_gate.hpp"

namespace workload {

struct ExpertPlacement {
  int gpus = 64;  // the EP group
  int gpus_per_node = 8;
  int experts = 256;  // routed experts, spread evenly: experts / gpus per GPU, in order

  int experts_per_gpu() const { return experts / gpus; }
  int gpu_of_expert(int e) const { return e / experts_per_gpu(); }
  int node_of_gpu(int g) const { return g / gpus_per_node; }
};

struct DispatchStats {
  double nodes_per_token = 0;          // nodes holding at least one of the token's experts
  double experts_per_node = 0;         // of those nodes, experts per node
  double ib_copies_per_token = 0;      // remote nodes reached
  double nvlink_copies_per_token = 0;  // GPUs reached inside target nodes, past the IB receiver
};

// Token t starts on GPU t % gpus.
DispatchStats dispatch_stats(const Routing& routing, const ExpertPlacement& placement);

// Bytes each GPU sends to each other GPU, by stage (GPUs x GPUs): IB between nodes, NVLink inside.
struct DispatchTraffic {
  std::vector<std::vector<double>> ib;
  std::vector<std::vector<double>> nvlink;
};
DispatchTraffic dispatch_traffic(const Routing& routing, const ExpertPlacement& placement, double bytes_per_token);

// What each GPU sends and receives over each link class, in bytes (the matrices' row and column sums).
struct GpuTraffic {
  double ib_sent = 0, ib_received = 0, nvlink_sent = 0, nvlink_received = 0;
};
std::vector<GpuTraffic> per_gpu_traffic(const DispatchTraffic& traffic);

// The same sums in token copies (bytes: copies x bytes per copy), counted token by token: a
// routing's first tokens are counted once and more of its tokens add to their counts.
struct GpuCopies {
  long long ib_sent = 0, ib_received = 0, nvlink_sent = 0, nvlink_received = 0;
};
// dispatch_traffic's copies of tokens [first, last), each token's experts given by `experts`
// (tokens x top_k, from token 0), added to `copies` (one per GPU of the placement).
void add_dispatch_copies(const std::vector<int>& experts, int top_k, int first, int last,
                         const ExpertPlacement& placement, std::vector<GpuCopies>& copies);
// direct_traffic's copies of one token starting on GPU token % gpus, sent to [first, last).
void add_direct_copies(int token, const int* first, const int* last, int gpus, int gpus_per_node,
                       std::vector<GpuCopies>& copies);

// The direct form of low-latency decode kernels (IBGDA, no forwarding): each token goes straight
// to the GPU of each of its experts, one message per (token, expert) selection as DeepEP's
// low-latency kernels send it (two experts on one GPU get two copies), over NVLink inside its
// node and over that GPU's own NIC outside it. `destinations[t]`: the GPU of each of token t's
// selections; token t starts on GPU t % gpus.
DispatchTraffic direct_traffic(const std::vector<std::vector<int>>& destinations, int gpus, int gpus_per_node,
                               double bytes_per_copy);

}  // namespace workload
