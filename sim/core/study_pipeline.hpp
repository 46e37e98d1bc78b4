#pragma once
// "pipeline": generates pipeline schedules, simulates them on the engine, and sets the
// measured bubble, activation peak and parameter copies beside the DeepSeek-V3 report's
// Table 2 formulas evaluated at the scenario's F, B, W and F&B.
#include "core/study.hpp"

namespace core {
std::unique_ptr<Study> parse_pipeline_study(JsonReader& root);
}
