#pragma once
// Synthetic routings kept for the rest of the process. Table 4's steps (MPFT and MRFT, each also
// calibrated) and its straggler cases route the same 262,144 tokens with the same seeds, and
// drawing and routing them was most of a step's cost outside its simulation. A routing is a pure
// function of these inputs, so the one kept is the one a new draw would give.
#include <cstdint>
#include <memory>
#include <vector>

#include "workload/moe/moe_gate.hpp"

namespace workload {

// route_synthetic_tokens(...), drawn once per process for the same inputs (the last few kept).
std::shared_ptr<const Routing> kept_synthetic_routing(int tokens, AffinitySkew skew, double strength,
                                                      std::uint64_t seed, const GateConfig& gate,
                                                      const std::vector<float>& bias);

}  // namespace workload
