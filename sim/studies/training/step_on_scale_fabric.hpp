#pragma once
// A training step's traffic on one of Table 3's topologies at its full size (net/scale/), for an
// analytical step of as many GPUs: every EP group's all-to-all beside every stage's send to the
// next, all at once, then a data-parallel ring step over every GPU, each on the whole fabric by
// classes of flows. Each traffic's time there over its time on its endpoints' own links (no other
// flow, no switch) is the slowdown the fabric gives it; the step stretches the times it gives that
// traffic by it (the all-to-alls, the pipeline's sends across nodes, the data-parallel phases),
// so its compute, overlap and schedule stay the analytical model's.
//
// On a multi-plane fat tree each GPU sends through its own plane (PXN: a node's GPUs one to a
// plane) and one plane is simulated, its planes carrying alike; elsewhere each GPU is an endpoint.
// An EP group's bytes to other nodes are spread evenly over the group's other endpoints.
#include <string>

#include "core/json_reader.hpp"
#include "net/scale/scale_fabric.hpp"
#include "studies/config/topology_config.hpp"

namespace studies {

struct ScaleStepNetwork {
  TopologyConfig topology;
  net::ScaleRouting routing = net::ScaleRouting::kDModK;
  double endpoint_Bps = 50e9, switch_Bps = 50e9;
  double memory_bytes = 8.0 * (1LL << 30);  // classes that would need more are refused
};
// "scale_fabric": {"topology": {kind and its parameters, "routing"}, "endpoint_bandwidth_Bps",
// "switch_link_bandwidth_Bps", "memory_limit_gb"}.
ScaleStepNetwork parse_scale_step_network(core::JsonReader& n);

// The step's traffic, per GPU.
struct ScaleStepTraffic {
  long long gpus = 0;
  int gpus_per_node = 8;
  int ep_gpus = 0;        // an EP group (consecutive GPUs); 0: no all-to-all
  double ep_bytes = 0;    // one dispatch's bytes to other nodes
  int stage_gpus = 0;     // the GPUs between a stage and the next (consecutive blocks)
  double pp_bytes = 0;    // one micro-batch's activation to the next stage
  double dp_bytes = 1e6;  // one ring step's chunk (the slowdown does not depend on it)
};

struct ScaleStepSlowdowns {
  double ep = 1, pp = 1, dp = 1;  // at least 1
  std::string note;
};

// Throws core::InputError naming the topology's path for one whose endpoints are not the step's
// `gpus` (times its planes), planes that are not a node's GPUs, or a build past the memory
// allowed: from the closed-form counts, before anything is built (a scenario's parse).
void check_scale_step_network(const ScaleStepNetwork& network, long long gpus, int gpus_per_node);

// For a network check_scale_step_network passed for `traffic`'s GPUs. Throws core::InputError
// naming `where` (the scale_fabric block) for groups or stages that are not whole switches'
// endpoints, or classes past the memory allowed.
ScaleStepSlowdowns scale_step_slowdowns(const ScaleStepNetwork& network, const ScaleStepTraffic& traffic,
                                        const std::string& where);

}  // namespace studies
