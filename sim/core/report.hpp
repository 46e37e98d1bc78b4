#pragma once
// What running a scenario produces: rows of (label, metric, unit, paper, ours), notes that
// explain the assumptions and misses, and optionally a Chrome trace. Rendered as Markdown,
// CSV or JSON; `codesim tables` merges the reports of the paper scenarios into tables.
#include <optional>
#include <string>
#include <vector>

namespace core {

struct ReportRow {
  std::string id;  // stable key, matched by the scenario's "expected" object
  std::string label;
  std::string metric;
  std::string unit;
  std::optional<double> paper;
  double ours = 0;

  // (ours - paper) / paper, when the paper gives a figure.
  std::optional<double> delta_rel() const;
};

struct Report {
  std::string table_id;
  std::string title;
  std::string source;
  std::vector<ReportRow> rows;
  std::vector<std::string> notes;
  std::optional<std::string> trace_json;
};

// Number formatting shared by every output: six significant digits, no exponent for
// everyday magnitudes, so that outputs are byte-stable across runs.
std::string format_number(double x);
std::string format_delta(const std::optional<double>& delta_rel);

std::string render_markdown(const std::vector<Report>& tables);
std::string render_csv(const std::vector<Report>& tables);
std::string render_json(const std::vector<Report>& tables);

// Joins reports that share a table id (in order of first appearance).
std::vector<Report> merge_by_table(const std::vector<Report>& reports);

}  // namespace core
