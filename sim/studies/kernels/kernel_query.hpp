#pragma once
// One kernel asked of the models directly, without a scenario: a GEMM through a GEMM library's
// model, an attention call through an attention backend's, a memory-bound op through the
// memory-kernel model. Each case is read from a JSON object (a line of a .jsonl file, a row of a
// DataFrame, or the CLI's flags), in our field names or in those of
// ../shared/measurements/*.jsonl, and its constants are the models' calibrated ones from data/:
// nothing is fitted to the case.
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "studies/report/kernel_estimate.hpp"

namespace studies {

const std::vector<std::string>& kernel_kinds();  // gemm, grouped_gemm, attention, memory, collective
const std::vector<std::string>& memory_op_names();

// Reads and times one case; InputError naming the field (its JSON pointer under `r`).
KernelEstimate estimate_gemm(core::JsonReader& r, const KernelDefaults& defaults, KernelCase& c);
KernelEstimate estimate_attention(core::JsonReader& r, const KernelDefaults& defaults, KernelCase& c);
KernelEstimate estimate_memory(core::JsonReader& r, const KernelDefaults& defaults, KernelCase& c);

}  // namespace studies
