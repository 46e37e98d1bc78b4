#include "studies/run/scenario.hpp"

#include <algorithm>
#include <cmath>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "studies/config/input_file.hpp"
#include "studies/config/overrides.hpp"
#include "studies/run/study_registry.hpp"

namespace studies {

Scenario parse_scenario(const nlohmann::json& document, const std::string& origin) {
  core::JsonReader root(document, "");
  Scenario s;
  s.origin = origin;
  s.kind = root.one_of("kind", study_kinds());
  s.title = root.string("title");
  s.source = root.optional_string("source").value_or("");
  s.label = root.optional_string("label").value_or("");
  s.table_id = root.optional_string("table").value_or(s.kind);
  if (const auto* notes = root.raw("notes")) {
    if (!notes->is_array())
      throw core::InputError("/notes", core::describe(*notes) + " is not allowed; expected an array of strings");
    for (std::size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string())
        throw core::InputError("/notes/" + std::to_string(i),
                               core::describe((*notes)[i]) + " is not allowed; expected a string");
      s.notes.push_back((*notes)[i].get<std::string>());
    }
  }
  if (auto expected = root.optional_object("expected")) {
    for (const auto& [key, value] : document.at("expected").items()) s.expected[key] = expected->number(key);
  }
  if (root.has("tolerance")) {
    s.tolerance_rel = root.positive_number("tolerance");
    if (s.tolerance_rel > 1)
      throw core::InputError("/tolerance",
                             format_number(s.tolerance_rel) + " is not allowed; a relative tolerance is at most 1");
  }
  if (root.has("tolerance_abs")) s.tolerance_abs = root.non_negative_number("tolerance_abs");
  for (const auto& [id, value] : s.expected)
    if (value == 0 && !s.tolerance_abs)
      throw core::InputError("/expected/" + id,
                             "0 has no relative delta; give the scenario a \"tolerance_abs\" to check it against");
  if (auto misses = root.optional_object("known_misses")) {
    for (const auto& [key, value] : document.at("known_misses").items()) {
      core::JsonReader miss = misses->object(key);
      KnownMiss m{miss.string("reason"), miss.number("delta")};
      if (m.delta == 0)
        throw core::InputError(miss.pointer_of("delta"), "0 is not allowed; a miss is recorded at the delta it has");
      miss.finish();
      s.known_misses[key] = m;
    }
  }
  if (auto fitted = root.optional_object("calibrated")) {
    for (const auto& [key, value] : document.at("calibrated").items()) {
      s.calibrated[key] = fitted->string(key);
      if (s.known_misses.count(key))
        throw core::InputError("/calibrated/" + key,
                               "is also a known miss; a row is either fitted to the paper or misses it");
    }
  }
  if (auto basis = root.optional_object("basis")) {
    // A scenario may only say less of a row than its study: that the paper's figure is a formula
    // or an input. Whether we simulated it is the study's to say, and fits are `calibrated`.
    for (const auto& [key, value] : document.at("basis").items())
      s.basis[key] = basis->one_of(key, {"formula", "input"}) == "formula" ? Basis::kFormula : Basis::kInput;
  }
  s.study = std::shared_ptr<const Study>(study_parser(s.kind)(root));
  root.finish();
  return s;
}

Report Scenario::step(const RunOptions& options) const {
  std::optional<StudyResult> result = study->step(options);
  if (!result)
    throw core::InputError(
        origin, "a '" + kind +
                    "' scenario times no single step; a step breakdown is of a training-step or an inference scenario");
  Report report;
  report.table_id = table_id;
  report.title = title + ": one step";
  report.source = source;
  report.notes = std::move(result->notes);
  report.warnings = std::move(result->warnings);
  for (auto& row : result->rows) {
    report.checks.push_back(RowCheck{});
    report.rows.push_back(std::move(row));
  }
  return report;
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
  report.series_csv = std::move(result.series_csv);
  report.warnings = std::move(result.warnings);
  std::vector<std::string> ids;
  for (auto& row : result.rows) {
    // An infinity is no result: an input beyond what the model holds made it (the readers' ranges
    // catch the ones we know of; this catches the rest before a user reads it as a figure).
    if (std::isinf(row.ours))
      throw core::InputError(
          origin, "the row '" + row.id + "' (" + row.metric + ") comes out " +
                      (row.ours > 0 ? "infinite" : "minus infinite") +
                      ": an input is beyond what the model holds; check the scenario's and its data files' figures");
    ids.push_back(row.id);
    if (auto it = expected.find(row.id); it != expected.end()) row.paper = it->second;
    RowCheck check{tolerance_rel, tolerance_abs, std::nullopt, std::nullopt};
    if (auto it = known_misses.find(row.id); it != known_misses.end()) check.known_miss = it->second;
    if (auto it = basis.find(row.id); it != basis.end()) row.basis = it->second;
    if (auto it = calibrated.find(row.id); it != calibrated.end()) {
      check.calibrated = it->second;
      row.basis = Basis::kFit;
    }
    report.checks.push_back(check);
    if (!label.empty()) row.label = label + ": " + row.label;
    report.rows.push_back(std::move(row));
  }
  // Each of these maps names rows with a paper figure; a name that matches none is a typo.
  auto require_compared = [&](const auto& by_row, const std::string& key, const std::string& what) {
    for (const auto& entry : by_row) {
      bool found = false;
      for (const auto& row : report.rows) found = found || (row.id == entry.first && row.paper);
      if (!found) throw core::InputError("/" + key + "/" + entry.first, "names no row with a paper figure; " + what);
    }
  };
  require_compared(known_misses, "known_misses", "a known miss is a paper figure we do not match");
  require_compared(basis, "basis", "a basis says what a comparison with the paper means");
  require_compared(calibrated, "calibrated", "a calibration point is a paper figure an input was fitted to");
  for (const auto& [id, value] : expected) {
    bool found = false;
    for (const auto& known : ids) found = found || known == id;
    if (!found)
      throw core::InputError("/expected/" + id, "no row of this scenario has this id; " + core::allowed_list(id, ids));
  }
  return report;
}

namespace {

// The scenario's own words (title, label, notes, source) describe the configuration its file
// holds; a run with fields set is another configuration, so they are marked as the base's and
// say what was set. Sets of those words themselves, or of the paper's figures, change nothing.
void mark_as_base(Scenario& s, const std::vector<std::string>& overrides) {
  // The scenario's words, its paper figures, and what it is asked to report (a plan, a series).
  static const std::vector<std::string> words = {"title",    "label",     "notes",         "source",       "table",
                                                 "expected", "tolerance", "tolerance_abs", "known_misses", "calibrated",
                                                 "basis",    "plan",      "series"};
  std::string sets;
  std::vector<std::string> set_words;
  for (const auto& assignment : overrides) {
    const std::string pointer = assignment.substr(0, assignment.find('='));
    const std::string first =
        pointer.substr(1, pointer.find('/', 1) == std::string::npos ? std::string::npos : pointer.find('/', 1) - 1);
    if (std::find(words.begin(), words.end(), first) != words.end()) {
      set_words.push_back(first);
    } else {
      // A long value (a model given inline) is named by its pointer alone.
      sets += (sets.empty() ? "" : ", ") + (assignment.size() > 48 ? pointer + "=..." : assignment);
    }
  }
  if (sets.empty()) return;
  auto given = [&](const std::string& word) {
    return std::find(set_words.begin(), set_words.end(), word) != set_words.end();
  };
  if (!given("title")) s.title += " (set: " + sets + ")";
  if (!given("label") && !s.label.empty()) s.label += " with " + sets;
  if (!given("source") && !s.source.empty()) s.source += " (the base scenario's; run with " + sets + ")";
  if (!given("notes"))
    for (auto& note : s.notes) note = "The base scenario, before " + sets + ": " + note;
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  nlohmann::json document = core::read_json_file(path);
  apply_overrides(document, overrides);
  const ScenarioFolder folder(path);  // the files it names are looked for beside it first
  Scenario s = parse_scenario(document, path);
  mark_as_base(s, overrides);
  return s;
}

}  // namespace studies
