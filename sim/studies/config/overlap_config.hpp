#pragma once
// How a serving unit's micro-batches overlap and how its all-to-alls are timed, read from a
// deployment's object (the inference and serving kinds share it):
//   "overlap": "deployed" (DeepSeek's stage order, the default) or "two-streams";
//   "all_to_all": "measured" (DeepEP's low-latency kernels as timed, the default) or "link-rate"
//   (the links' full rate and latency, as the papers' bounds assume).
#include <string>

#include "core/json_reader.hpp"
#include "workload/inference/inference.hpp"

namespace studies {

void parse_overlap(core::JsonReader& unit, workload::ServingDeployment& deployment);

// The two choices in words, for a report's notes.
std::string describe_overlap(const workload::ServingDeployment& deployment, bool prefill);

}  // namespace studies
