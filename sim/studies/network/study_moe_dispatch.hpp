#pragma once
// "moe-dispatch": DeepEP-style dispatch (FP8) and combine (BF16) of real routing decisions over
// a multi-plane fat tree, for several EP sizes: the tokens cross IB once per target node to the
// GPU of the same in-node index (so they stay on their plane), then fan out over NVLink; combine
// retraces the path. Reports per-GPU IB bandwidth as DeepEP's tests do (ISCA'25 Figure 7).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_moe_dispatch_study(core::JsonReader& root);
}
