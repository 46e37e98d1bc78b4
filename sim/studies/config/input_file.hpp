#pragma once
// A file a scenario names (a trace, a calibration, a model's config.json): as given when
// absolute; else relative to the scenario file's folder, to where codesim runs, then to the
// source tree, where the shipped data files live.
#include <string>
#include <vector>

namespace studies {

// While one is alive (on this thread), relative paths are looked for first in the folder of
// the scenario file being read.
class ScenarioFolder {
 public:
  explicit ScenarioFolder(const std::string& scenario_path);
  ~ScenarioFolder();
  ScenarioFolder(const ScenarioFolder&) = delete;
  ScenarioFolder& operator=(const ScenarioFolder&) = delete;

 private:
  std::string previous_;
};

// The first place that holds `path`, or (none) the path as given.
std::string resolve_input_file(const std::string& path);
// The absolute paths looked at, in order, for an error that names them.
std::vector<std::string> input_file_places(const std::string& path);

}  // namespace studies
