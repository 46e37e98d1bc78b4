#pragma once
// A file a scenario names (a calibration, a model's config.json): as given, relative to where
// codesim runs, else relative to the source tree, where the shipped data files live.
#include <string>

namespace studies {

std::string resolve_input_file(const std::string& path);

}  // namespace studies
