#pragma once
// "network-cost": builds each listed topology as a graph, counts endpoints, switches and links
// from it, and prices them (ISCA'25 Table 3).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_network_cost_study(core::JsonReader& root);
}
