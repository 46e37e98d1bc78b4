#pragma once
// "chunk-overlap": the Figure 4 overlap of a forward and a backward chunk, simulated on one GPU's
// compute and communication streams, against running the two chunks one after the other.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_chunk_overlap_study(core::JsonReader& root);
}
