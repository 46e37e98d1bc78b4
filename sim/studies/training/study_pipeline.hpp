#pragma once
// "pipeline": generates pipeline schedules, simulates them on the engine, and sets the
// measured bubble, activation peak and parameter copies beside the DeepSeek-V3 report's
// Table 2 formulas evaluated at the scenario's F, B, W and F&B.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_pipeline_study(core::JsonReader& root);
}
