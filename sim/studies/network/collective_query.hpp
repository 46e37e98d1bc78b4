#pragma once
// One collective asked of the network model directly: an all-to-all, all-reduce, all-gather or
// reduce-scatter of `bytes` (nccl-tests' size: what each rank sends in all) over `ranks` GPUs of
// a scenario's fabric, run as the "collective" study runs it (flow simulation, or the all-to-all
// through the fabric's symmetries), with the fabric's nodes set to hold the ranks.
#include "core/json_reader.hpp"
#include "studies/report/kernel_estimate.hpp"

namespace studies {

const std::vector<std::string>& collective_names();  // all-to-all, all-reduce, all-gather, reduce-scatter

// Fields: collective, ranks, bytes, fabric (a scenario file with a "fabric" of nodes).
KernelEstimate estimate_collective(core::JsonReader& r, KernelCase& c);

}  // namespace studies
