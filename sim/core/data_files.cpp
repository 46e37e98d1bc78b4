#include "core/data_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/input_error.hpp"

namespace core {

namespace fs = std::filesystem;

namespace {

std::vector<std::string>& added() {
  static std::vector<std::string> dirs;
  return dirs;
}

std::string& install_prefix() {
  static std::string prefix;
  return prefix;
}

// The *.json files of `dir`, sorted by name (none when it is not a folder).
std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string shipped_dir(const std::string& name) {
  std::error_code ec;
  fs::path prefix = install_prefix();
  if (prefix.empty()) prefix = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
  const fs::path installed = prefix / "share" / "codesim" / name;
  if (!prefix.empty() && fs::is_directory(installed, ec)) return installed.string();
  return (fs::path(CODESIM_SOURCE_DIR) / name).string();
}

std::string builtin_data_dir() { return shipped_dir("data"); }

void set_install_prefix(const std::string& prefix) { install_prefix() = prefix; }

const std::vector<std::string>& added_data_dirs() { return added(); }

void add_data_dir(const std::string& dir, const std::string& where) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(
        where,
        "'" + dir + "' is not a folder; a data folder holds gpus/, models/, gemm_libraries/, ... of *.json files");
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory(ec))
      for (const auto& file : json_files(entry.path())) read_json_file(file.string());  // InputError naming the file
  added().push_back(dir);
}

void add_data_dirs_from_environment() {
  const char* value = std::getenv("CODESIM_DATA");
  if (!value || !*value) return;
  std::stringstream dirs(value);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty()) add_data_dir(dir, "CODESIM_DATA");
}

std::vector<const std::pair<std::string, nlohmann::json>*> holders_last(
    const std::vector<std::pair<std::string, nlohmann::json>>& files) {
  std::vector<const std::pair<std::string, nlohmann::json>*> ordered;
  for (const bool holds : {false, true})
    for (const auto& file : files)
      if (file.second.contains("held_constants") == holds) ordered.push_back(&file);
  return ordered;
}

std::vector<std::pair<std::string, nlohmann::json>> read_data_folder(const std::string& folder) {
  std::vector<std::string> files;
  std::set<std::string> names;  // file names taken by an added folder
  for (const auto& dir : added())
    for (const auto& f : json_files(fs::path(dir) / folder))
      if (names.insert(f.filename().string()).second) files.push_back(f.string());
  const fs::path builtin = fs::path(builtin_data_dir()) / folder;
  const auto shipped = json_files(builtin);
  if (shipped.empty())
    throw InputError(builtin.string(), "holds no data file (*.json); codesim's data/ folder is missing");
  for (const auto& f : shipped)
    if (!names.count(f.filename().string())) files.push_back(f.string());
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto& f : files) out.emplace_back(f, read_json_file(f));
  return out;
}

void require_sources(JsonReader& file, const std::vector<std::string>& figures) {
  JsonReader sources = file.object("sources");
  for (const auto& figure : figures)
    if (sources.string(figure).empty())
      throw InputError(sources.pointer_of(figure), "is empty; every figure needs its source");
  sources.finish();
}

}  // namespace core
