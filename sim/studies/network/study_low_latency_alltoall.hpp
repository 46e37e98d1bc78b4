#pragma once
// DeepEP's low-latency all-to-all kernels (decode's dispatch and combine): every published row
// against the kernel model fitted to them (hw/low_latency_alltoall.hpp), fitted rows and the
// rows the model predicts.
#include <memory>

#include "core/json_reader.hpp"
#include "studies/report/study.hpp"

namespace studies {

std::unique_ptr<Study> parse_low_latency_alltoall_study(core::JsonReader& root);

}  // namespace studies
