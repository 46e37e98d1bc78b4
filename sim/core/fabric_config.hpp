#pragma once
// The fields a scenario's "fabric" section shares between studies: routing, nodes of GPUs on
// NVLink, switch radix, and link bandwidths and latencies.
#include <string>

#include "core/json_reader.hpp"
#include "net/fabric.hpp"

namespace core {

net::Routing routing_by_name(const std::string& name);

// Reads them into `spec` and returns the routing's name. `with_nodes`: the fabric is nodes of
// GPUs (nodes, gpus_per_node, radix, NVLink); false for a topology graph of single GPUs.
std::string read_fabric_fields(JsonReader& f, net::FabricSpec& spec, bool with_nodes);

}  // namespace core
