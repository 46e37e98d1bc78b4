#pragma once
// What running a scenario produces: rows of (label, metric, unit, paper, ours), notes that
// explain the assumptions and misses, and optionally a Chrome trace. Rendered as Markdown,
// CSV or JSON; `codesim tables` merges the reports of the paper scenarios into tables.
#include <optional>
#include <string>
#include <vector>

namespace studies {

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

// For `codesim tables --check`: the largest |delta| a row's scenario accepts, or why it does not
// expect to match the paper (a miss its notes explain), or which input was fitted to the paper's
// figure (a calibration point: it must still match, but it reproduces nothing).
struct RowCheck {
  double tolerance_rel = 0.05;
  std::optional<std::string> known_miss;
  std::optional<std::string> calibrated;
};

struct Report {
  std::string table_id;
  std::string title;
  std::string source;
  std::vector<ReportRow> rows;
  std::vector<std::string> notes;
  std::optional<std::string> trace_json;
  std::vector<RowCheck> checks;  // one per row
};

// Number formatting shared by every output: six significant digits, no exponent for
// everyday magnitudes, so that outputs are byte-stable across runs.
std::string format_number(double x);
std::string format_delta(const std::optional<double>& delta_rel);

std::string render_markdown(const std::vector<Report>& tables);
std::string render_csv(const std::vector<Report>& tables);
// One CSV field, quoted when it holds a comma, a quote or a newline (RFC 4180).
std::string csv_field(const std::string& text);
std::string render_json(const std::vector<Report>& tables);

// `codesim tables --check`: every row with a paper figure is within its tolerance or a known
// miss; calibration points are counted apart from reproduced figures. Returns the summary lines; `failures` counts rows past their tolerance.
std::vector<std::string> check_rows(const std::vector<Report>& tables, int& failures);

// Joins reports that share a table id (in order of first appearance).
std::vector<Report> merge_by_table(const std::vector<Report>& reports);

}  // namespace studies
