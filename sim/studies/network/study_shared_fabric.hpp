#pragma once
// "shared-fabric": several jobs on one fabric, each on nodes of its own and each a loop of
// compute then a collective over its GPUs (an EP all-to-all, a DP all-reduce), their traffic
// sharing the fabric's links. Each job's iteration time alone, with plain sharing (every flow an
// equal share) and under each isolation case's traffic classes (net/traffic_class): its
// slowdown from sharing and what isolation buys back.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_shared_fabric_study(core::JsonReader& root);
}
