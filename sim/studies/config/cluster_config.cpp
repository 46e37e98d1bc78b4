#include "studies/config/cluster_config.hpp"

namespace studies {

ClusterConfig parse_cluster(core::JsonReader c) {
  ClusterConfig out;
  out.node = &hw::node_by_name(c.one_of("node", hw::node_names()), c.pointer_of("node"));
  const hw::Node& n = *out.node;
  net::Cluster& k = out.cluster;
  k.nodes = static_cast<int>(c.positive_integer("nodes", 1, 1'000'000));
  k.gpus_per_node = n.gpus;
  out.gpu = &n.gpu_model();
  if (c.has("gpu")) out.gpu = &hw::gpu_by_name(c.one_of("gpu", hw::gpu_names()), c.pointer_of("gpu"));
  k.gpu_flops_per_s = out.gpu->bf16_dense_flops_per_s;
  // Collectives reach the achieved NVLink figure, not the nominal one (DeepSeek-V3 report §3.2.2).
  k.scale_up_Bps = c.positive_number("scale_up_bandwidth_Bps", n.scale_up_achieved_Bps);
  k.scale_up_latency_s = c.non_negative_number("scale_up_latency_s", n.scale_up_latency_s);
  k.scale_out_Bps = c.positive_number("scale_out_bandwidth_Bps", n.nic_Bps);
  k.scale_out_latency_s = c.non_negative_number("scale_out_latency_s", n.scale_out_latency_s);
  c.finish();
  return out;
}

}  // namespace studies
