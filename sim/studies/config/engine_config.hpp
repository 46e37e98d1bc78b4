#pragma once
// The serving engines' profiles (data/engines/*.json, each figure with its source), by name.
#include <string>
#include <vector>

#include "serving/engine_profile.hpp"

namespace studies {

std::vector<std::string> engine_names();
// `where`: the JSON pointer of the name, for the "unknown, did you mean" error. An engine with
// profiles for several versions gives its latest.
const serving::EngineProfile& engine_by_name(const std::string& name, const std::string& where);
// One version's profile; `where`: the version's JSON pointer, for the error naming the versions.
const serving::EngineProfile& engine_by_version(const std::string& name, const std::string& version,
                                                const std::string& where);
std::vector<std::string> engine_versions(const std::string& name);
// An expert-parallel MoE's ways for the tokens, as a unit's `communication` and an engine's MoE
// path name them: "forwarded", "direct", "all-gather".
const std::vector<std::string>& moe_communication_names();

}  // namespace studies
