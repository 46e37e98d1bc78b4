#pragma once
// The machine a simulation runs on, resolved from a hw::Node and the scenario's overrides:
// nodes of GPUs joined by a scale-up fabric (NVLink), one scale-out NIC per GPU, and a
// non-blocking switch fabric between the NICs (real topologies come with net::Topology).
namespace net {

struct Cluster {
  int nodes = 1;
  int gpus_per_node = 8;
  double gpu_flops_per_s = 0;      // speed of a GPU host; compute tasks are given in seconds
  double scale_up_Bps = 0;         // per GPU, per direction
  double scale_up_latency_s = 0;   // end to end
  double scale_out_Bps = 0;        // per NIC, per direction
  double scale_out_latency_s = 0;  // end to end

  int gpus() const { return nodes * gpus_per_node; }
  int node_of(int rank) const { return rank / gpus_per_node; }
};

// `gpus` GPUs, one per node, on links fast enough (1 PB/s, no latency) to take no visible time:
// for studies that time compute and stream order alone.
inline Cluster ideal_cluster(int gpus) {
  Cluster c;
  c.nodes = gpus;
  c.gpus_per_node = 1;
  c.gpu_flops_per_s = 1e15;
  c.scale_up_Bps = c.scale_out_Bps = 1e15;
  return c;
}

}  // namespace net
