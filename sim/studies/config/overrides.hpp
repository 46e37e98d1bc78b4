#pragma once
// `--set /json/pointer=VALUE`: replaces (or adds, when its parent exists) one field of a
// scenario before it is validated. VALUE is read as JSON when it parses, else as a string, so
// `--set /model=qwen2.5-72b` and `--set /cluster/scale_out_bandwidth_Bps=100e9` both work.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace studies {

void apply_override(nlohmann::json& document, const std::string& assignment);
void apply_overrides(nlohmann::json& document, const std::vector<std::string>& assignments);

}  // namespace studies
