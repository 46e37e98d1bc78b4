#pragma once
// The fields a scenario's "fabric" section shares between studies: routing, nodes of GPUs on
// NVLink, switch radix, and link bandwidths and latencies.
#include <string>

#include "core/json_reader.hpp"
#include "net/fabric.hpp"
#include "net/latency_model.hpp"

namespace studies {

net::Routing routing_by_name(const std::string& name);

// Reads them into `spec` and returns the routing's name. `with_nodes`: the fabric is nodes of
// GPUs (nodes, gpus_per_node, radix, NVLink); false for a topology graph of single GPUs.
std::string read_fabric_fields(core::JsonReader& f, net::FabricSpec& spec, bool with_nodes);

// The "faults" list of `f` (none when it has none), unchecked against a fabric: net::check_faults.
std::vector<net::Fault> read_faults(core::JsonReader& f);

// A flow scenario runs while its job does: a GPU or node fault, which stops the job, is refused
// (the training-run study counts what such faults cost over a run).
void refuse_job_stopping_faults(const net::FabricSpec& spec, const std::string& where);

// The per-hop latency model's fields: endpoint_latency_s and switch_latency_s (required),
// propagation_s_per_m, endpoint_cable_m, switch_cable_m.
net::HopLatencies read_hop_latencies(core::JsonReader& h);

}  // namespace studies
