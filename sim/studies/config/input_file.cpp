#include "studies/config/input_file.hpp"

#include <filesystem>

namespace studies {

namespace {
thread_local std::string scenario_folder;
}

ScenarioFolder::ScenarioFolder(const std::string& scenario_path) : previous_(scenario_folder) {
  scenario_folder = std::filesystem::absolute(std::filesystem::path(scenario_path)).parent_path().string();
}

ScenarioFolder::~ScenarioFolder() { scenario_folder = previous_; }

std::vector<std::string> input_file_places(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::path(path).is_absolute()) return {path};
  std::vector<std::string> places;
  if (!scenario_folder.empty()) places.push_back((fs::path(scenario_folder) / path).lexically_normal().string());
  places.push_back(fs::absolute(path).lexically_normal().string());
  places.push_back((fs::path(CODESIM_SOURCE_DIR) / path).lexically_normal().string());
  return places;
}

std::string resolve_input_file(const std::string& path) {
  std::error_code ec;
  for (const auto& place : input_file_places(path))
    if (std::filesystem::exists(place, ec)) return place;
  return path;
}

}  // namespace studies
