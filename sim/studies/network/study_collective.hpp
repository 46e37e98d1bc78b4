#pragma once
// "collective": an all-to-all, ring all-gather or ring reduce-scatter over a multi-plane or
// multi-rail fabric, simulated flow by flow for each message size and reported as nccl-tests
// does (algbw, busbw, time). ISCA'25 Figures 5, 6 and 8.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_collective_study(core::JsonReader& root);
}
