#pragma once
// The scenario's "cluster" section: a node type from hw/node.cpp plus optional overrides of
// its links, resolved into a net::Cluster.
#include "core/json_reader.hpp"
#include "hw/node.hpp"
#include "net/cluster.hpp"

namespace studies {

struct ClusterConfig {
  const hw::Node* node = nullptr;
  const hw::Gpu* gpu = nullptr;  // the node's, unless the scenario swaps it
  net::Cluster cluster;
};

// Reads {"node": NAME, "gpu": NAME, "nodes": N, "scale_up_bandwidth_Bps", "scale_up_latency_s",
// "scale_out_bandwidth_Bps", "scale_out_latency_s"}; every field but "node" is optional.
ClusterConfig parse_cluster(core::JsonReader section);

}  // namespace studies
