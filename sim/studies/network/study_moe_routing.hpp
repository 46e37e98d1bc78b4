#pragma once
// "moe-routing": DeepSeekMoE's gate on seeded synthetic affinities: what node-limited routing
// does to nodes per token, experts per node and IB traffic against unrestricted top-k; the
// "3.2 experts per node, up to 13 experts for the same cost" argument from the node's NVLink/IB
// bandwidths; and expert load balance with the bias updates (V3 report §2.1.2, §3.2.2).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_moe_routing_study(core::JsonReader& root);
}
