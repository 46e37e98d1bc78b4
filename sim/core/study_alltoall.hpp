#pragma once
// "alltoall": an all-to-all over a multi-plane or multi-rail fabric, simulated flow by flow for
// each message size, reported as nccl-tests does (algbw, busbw, time). ISCA'25 Figures 5-6.
#include "core/study.hpp"

namespace core {
std::unique_ptr<Study> parse_alltoall_study(JsonReader& root);
}
