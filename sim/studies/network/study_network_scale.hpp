#pragma once
// "network-scale": each of Table 3's topologies at its full size, its traffic simulated by
// classes of flows through the fabric's symmetries (net/scale_traffic): the whole fabric's
// all-to-all (bandwidth per GPU), an EP group's all-to-all in every group at once, a ring
// all-reduce over every endpoint, and the cost per endpoint from Table 3's prices, side by side.
// A topology whose graph or classes would need more memory than the scenario allows is refused
// before anything is built, with the figure.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_network_scale_study(core::JsonReader& root);
}
