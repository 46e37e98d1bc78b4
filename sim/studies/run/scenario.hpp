#pragma once
// A scenario file: which study it runs (its "kind"), the table it belongs to, the paper's
// figures to print beside ours ("expected"), and the study's own sections. Loading validates
// everything; bad input raises InputError naming the JSON pointer.
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/report/report.hpp"
#include "studies/report/study.hpp"

namespace studies {

struct Scenario {
  std::string origin;  // file path, for messages
  std::string kind;
  std::string title;
  std::string source;
  std::string label;  // prefix for row labels when several scenarios share a table
  std::string table_id;
  std::vector<std::string> notes;
  std::map<std::string, double> expected;         // row id -> the paper's figure
  double tolerance_rel = 0.05;                    // for `tables --check`
  std::optional<double> tolerance_abs;            // for paper figures of 0
  std::map<std::string, KnownMiss> known_misses;  // row id -> why it misses the paper, and by how much
  std::map<std::string, std::string> calibrated;  // row id -> the input fitted to the paper's figure
  std::map<std::string, Basis> basis;             // row id -> formula or input, where the study says more
  std::shared_ptr<const Study> study;

  // Runs the study; throws InputError when "expected" names a row the study does not produce.
  Report run(const RunOptions& options) const;
  // The study's step breakdown alone (Study::step); InputError for a kind that times no step.
  Report step(const RunOptions& options) const;
};

Scenario parse_scenario(const nlohmann::json& document, const std::string& origin);
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

}  // namespace studies
