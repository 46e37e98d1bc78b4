#pragma once
// The optional "numerics" section any simulation scenario may carry: for the GEMM shapes of its
// workload, run the FP8 recipe on seeded data (a sample of rows and output columns, the full K)
// and report the accumulation error beside the timing.
#include <optional>
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "hw/fp8/gemm_study.hpp"
#include "studies/report/report.hpp"

namespace studies {

struct NumericsConfig {
  hw::fp8::AccumulatorModel model;  // the recipe: FP22 with promotion every 128 by default
  long long sample_rows = 32;
  long long sample_cols = 64;
  std::uint64_t seed = 1;
};

struct GemmShape {
  std::string name;  // e.g. "expert gate/up projection"
  long long m = 0, n = 0, k = 0;
};

std::optional<NumericsConfig> parse_numerics(core::JsonReader& root);
std::vector<ReportRow> numerics_rows(const std::vector<GemmShape>& shapes, const NumericsConfig& config);

}  // namespace studies
