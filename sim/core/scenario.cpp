#include "core/scenario.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "core/overrides.hpp"
#include "core/study_registry.hpp"

namespace core {

Scenario parse_scenario(const nlohmann::json& document, const std::string& origin) {
  JsonReader root(document, "");
  Scenario s;
  s.origin = origin;
  s.kind = root.one_of("kind", study_kinds());
  s.title = root.string("title");
  s.source = root.optional_string("source").value_or("");
  s.label = root.optional_string("label").value_or("");
  s.table_id = root.optional_string("table").value_or(s.kind);
  if (const auto* notes = root.raw("notes")) {
    if (!notes->is_array()) throw InputError("/notes", describe(*notes) + " is not allowed; expected an array of strings");
    for (std::size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string())
        throw InputError("/notes/" + std::to_string(i), describe((*notes)[i]) + " is not allowed; expected a string");
      s.notes.push_back((*notes)[i].get<std::string>());
    }
  }
  if (auto expected = root.optional_object("expected")) {
    for (const auto& [key, value] : document.at("expected").items()) s.expected[key] = expected->number(key);
  }
  if (root.has("tolerance")) {
    s.tolerance_rel = root.positive_number("tolerance");
    if (s.tolerance_rel > 1) throw InputError("/tolerance", format_number(s.tolerance_rel) + " is not allowed; a relative tolerance is at most 1");
  }
  if (auto misses = root.optional_object("known_misses")) {
    for (const auto& [key, value] : document.at("known_misses").items()) s.known_misses[key] = misses->string(key);
  }
  if (auto fitted = root.optional_object("calibrated")) {
    for (const auto& [key, value] : document.at("calibrated").items()) {
      s.calibrated[key] = fitted->string(key);
      if (s.known_misses.count(key))
        throw InputError("/calibrated/" + key, "is also a known miss; a row is either fitted to the paper or misses it");
    }
  }
  s.study = std::shared_ptr<const Study>(study_parser(s.kind)(root));
  root.finish();
  return s;
}

Report Scenario::run(const RunOptions& options) const {
  StudyResult result = study->run(options);
  Report report;
  report.table_id = table_id;
  report.title = title;
  report.source = source;
  report.notes = notes;
  report.notes.insert(report.notes.end(), result.notes.begin(), result.notes.end());
  report.trace_json = std::move(result.trace_json);
  std::vector<std::string> ids;
  for (auto& row : result.rows) {
    ids.push_back(row.id);
    if (auto it = expected.find(row.id); it != expected.end()) row.paper = it->second;
    RowCheck check{tolerance_rel, std::nullopt, std::nullopt};
    if (auto it = known_misses.find(row.id); it != known_misses.end()) check.known_miss = it->second;
    if (auto it = calibrated.find(row.id); it != calibrated.end()) check.calibrated = it->second;
    report.checks.push_back(check);
    if (!label.empty()) row.label = label + ": " + row.label;
    report.rows.push_back(std::move(row));
  }
  for (const auto& [id, reason] : known_misses) {
    bool found = false;
    for (const auto& row : report.rows) found = found || (row.id == id && row.paper);
    if (!found) throw InputError("/known_misses/" + id, "names no row with a paper figure; a known miss is a paper figure we do not match");
  }
  for (const auto& [id, input] : calibrated) {
    bool found = false;
    for (const auto& row : report.rows) found = found || (row.id == id && row.paper);
    if (!found) throw InputError("/calibrated/" + id, "names no row with a paper figure; a calibration point is a paper figure an input was fitted to");
  }
  for (const auto& [id, value] : expected) {
    bool found = false;
    for (const auto& known : ids) found = found || known == id;
    if (!found) throw InputError("/expected/" + id, "no row of this scenario has this id; " + allowed_list(id, ids));
  }
  return report;
}

nlohmann::json read_json_file(const std::string& path) {
  // A device or a pipe could be read forever, and a huge file is not a scenario: refuse both.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path, "is not a regular file");
  constexpr std::uintmax_t kMaxBytes = 256u << 20;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxBytes)
    throw InputError(path, std::to_string(size) + " bytes is more than a JSON input may hold (256 MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the file (missing or unreadable)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // syntax errors, and numbers too large for a double
    std::string what = e.what();
    if (auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    throw InputError(origin, "malformed JSON: " + what);
  }
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  nlohmann::json document = read_json_file(path);
  apply_overrides(document, overrides);
  return parse_scenario(document, path);
}

}  // namespace core
