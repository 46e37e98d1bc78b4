#pragma once
// A scenario's stragglers: GPUs that compute slower than the rest, named as the fabric names
// them ("node 17 / gpu 3"), or drawn with a seed:
//   {"gpus": [{"gpu": "node 17 / gpu 3", "slowdown": 1.1, "from_s": 0}],
//    "drawn": {"count": 4, "slowdown_min": 1.05, "slowdown_max": 1.2, "from_s": 0, "seed": 1}}
// A slowdown of 1.1 computes in 1.1x the time (10% slower), from from_s on.
#include "core/compute_slowdown.hpp"
#include "core/json_reader.hpp"
#include "net/fabric.hpp"

namespace studies {

core::ComputeSlowdowns read_stragglers(core::JsonReader& s, const net::FabricSpec& fabric);

// "node 17 / gpu 3", the name of the fabric's GPU `gpu`.
std::string gpu_name(const net::FabricSpec& fabric, int gpu);

}  // namespace studies
