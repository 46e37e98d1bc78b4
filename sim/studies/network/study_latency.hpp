#pragma once
// "latency": a 64 B ping-pong through the engine on each link layer's platform (same leaf,
// cross leaf, optionally across the pods of a three-level fat tree; NVLink inside a node), with
// every link's latency from the per-hop model (ISCA'25 Table 5).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_latency_study(core::JsonReader& root);
}
