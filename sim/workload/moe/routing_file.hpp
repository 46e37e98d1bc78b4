#pragma once
// Routing decisions recorded elsewhere (a real gate's output, another simulator's), read from a
// JSON file: {"experts": 256, "top_k": 8, "tokens": [[e0, ..., e7], ...]}, one row of expert
// ids per token in the order the tokens sit on the GPUs (token t on GPU t % EP size), with
// optional "weights" of the same shape.
#include <string>

#include "workload/moe/moe_gate.hpp"

namespace workload {

// Throws core::InputError naming the file and the JSON pointer of the first entry that does
// not match the model's `experts` and `top_k`, or that holds an expert twice.
Routing read_routing_file(const std::string& path, int experts, int top_k);

}  // namespace workload
