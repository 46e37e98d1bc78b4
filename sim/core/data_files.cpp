#include "core/data_files.hpp"

#include <algorithm>
#include <filesystem>

#include "core/input_error.hpp"

namespace core {

std::vector<std::pair<std::string, nlohmann::json>> read_data_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(CODESIM_SOURCE_DIR) / "data" / folder;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  if (files.empty()) throw InputError(dir.string(), "holds no data file (*.json); the source tree's data/ folder is missing");
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto& f : files) out.emplace_back(f, read_json_file(f));
  return out;
}

void require_sources(JsonReader& file, const std::vector<std::string>& figures) {
  JsonReader sources = file.object("sources");
  for (const auto& figure : figures)
    if (sources.string(figure).empty()) throw InputError(sources.pointer_of(figure), "is empty; every figure needs its source");
  sources.finish();
}

}  // namespace core
