#pragma once
// What running a scenario produces: rows of (label, metric, unit, paper, ours), notes that
// explain the assumptions and misses, and optionally a Chrome trace. Rendered as Markdown,
// CSV or JSON; `codesim tables` merges the reports of the paper scenarios into tables.
#include <optional>
#include <string>
#include <vector>

namespace studies {

// What agreement with the paper's figure means for a row: `simulated`, the engine or a model
// (a gate, an FP8 GEMM, a flow simulation) produced our figure; `closed-form`, arithmetic on
// the inputs; `formula`, the compared figure is a formula we evaluate, not a printed paper
// number; `input`, our figure restates an input (or the paper's figure is one); `fit`, an input
// was fitted to the paper's figure. Only `simulated` rows test the simulation.
enum class Basis { kSimulated, kClosedForm, kFormula, kInput, kFit };
const std::vector<std::string>& basis_names();  // in the enum's order
const std::string& basis_name(Basis basis);

struct ReportRow {
  std::string id;  // stable key, matched by the scenario's "expected" object
  std::string label;
  std::string metric;
  std::string unit;
  std::optional<double> paper;
  double ours = 0;
  Basis basis = Basis::kClosedForm;  // the study's own account; a scenario may restate it

  // (ours - paper) / paper, when the paper gives a non-zero figure.
  std::optional<double> delta_rel() const;
};

// A paper figure we know we do not match: why (with the number that shows it), and the delta
// it was recorded at: relative, or ours - paper where the paper's figure is 0. The check fails
// when the miss grows past that delta or changes sign, and when the row comes within tolerance.
struct KnownMiss {
  std::string reason;
  double delta = 0;
};

// For `codesim tables --check`: the largest |delta| a row's scenario accepts (relative, or
// absolute where the paper's figure is 0), or the miss its notes explain, or which input was
// fitted to the paper's figure (a calibration point: it must still match, but it reproduces
// nothing).
struct RowCheck {
  double tolerance_rel = 0.05;
  std::optional<double> tolerance_abs;
  std::optional<KnownMiss> known_miss;
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
  std::vector<std::string> warnings;
  std::optional<std::string> series_csv = std::nullopt;  // a serving fleet's figures per interval (run --series)
};

// Number formatting shared by every output: six significant digits, no exponent for
// everyday magnitudes, so that outputs are byte-stable across runs.
std::string format_number(double x);
// A number as a row id holds it: exact (a whole number as its digits, 67108864, not 6.71089e+07),
// so that two sizes never share an id.
std::string id_number(double x);
std::string format_delta(const std::optional<double>& delta_rel);

std::string render_markdown(const std::vector<Report>& tables);
std::string render_csv(const std::vector<Report>& tables);
// One CSV field, quoted when it holds a comma, a quote or a newline (RFC 4180).
std::string csv_field(const std::string& text);
std::string render_json(const std::vector<Report>& tables);

// `codesim tables --check`: every row with a paper figure is a finite number within its
// tolerance, or a known miss no larger than recorded; rows within tolerance are counted by
// basis. Returns the summary lines; `failures` counts the rows that fail.
std::vector<std::string> check_rows(const std::vector<Report>& tables, int& failures);

// Joins reports that share a table id (in order of first appearance).
std::vector<Report> merge_by_table(const std::vector<Report>& reports);

}  // namespace studies
