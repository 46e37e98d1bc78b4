#pragma once
// The synthetic routing a scenario names: {"skew": "uniform" | "zipf" | "hot-experts",
// "skew_strength": x}, read from any section that routes tokens.
#include <string>

#include "core/json_reader.hpp"
#include "workload/moe/moe_gate.hpp"

namespace studies {

workload::AffinityDistribution parse_affinity(core::JsonReader& section, const std::string& default_skew,
                                              double default_strength);

}  // namespace studies
