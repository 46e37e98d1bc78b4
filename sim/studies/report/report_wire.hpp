#pragma once
// A Report as bytes, for a worker process to hand its report whole to the process that forked
// it: every field, each number by its bits (NaN and the last digit included), so the report read
// back prints byte for byte as the one written.
#include <string>

#include "studies/report/report.hpp"

namespace studies {

std::string report_to_bytes(const Report& report);
// Throws std::runtime_error for bytes that are not one whole report.
Report report_from_bytes(const std::string& bytes);

}  // namespace studies
