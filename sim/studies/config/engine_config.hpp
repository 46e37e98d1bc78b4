#pragma once
// The serving engines' profiles (data/engines/*.json, each figure with its source), by name.
#include <string>
#include <vector>

#include "serving/engine_profile.hpp"

namespace studies {

std::vector<std::string> engine_names();
// `where`: the JSON pointer of the name, for the "unknown, did you mean" error.
const serving::EngineProfile& engine_by_name(const std::string& name, const std::string& where);

}  // namespace studies
