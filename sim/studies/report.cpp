#include "studies/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace studies {

std::optional<double> ReportRow::delta_rel() const {
  if (!paper || *paper == 0) return std::nullopt;
  return (ours - *paper) / *paper;
}

std::string format_number(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string format_delta(const std::optional<double>& delta_rel) {
  if (!delta_rel) return "–";
  char buffer[64];
  const double percent = *delta_rel * 100;
  std::snprintf(buffer, sizeof buffer, "%+.2f%%", std::abs(percent) < 0.005 ? 0.0 : percent);
  return buffer;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string render_markdown(const std::vector<Report>& tables) {
  std::string out;
  for (const auto& t : tables) {
    if (!out.empty()) out += "\n";
    out += "## " + t.table_id + ": " + t.title + "\n\n";
    if (!t.source.empty()) out += "Source: " + t.source + "\n\n";
    out += "| row | metric | unit | paper | ours | delta |\n|---|---|---|---:|---:|---:|\n";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      const RowCheck check = i < t.checks.size() ? t.checks[i] : RowCheck{};
      // Mark the deltas that are not reproductions: a known miss, or a figure an input was fitted to.
      const std::string mark = !r.paper ? "" : check.known_miss ? " (miss)" : check.calibrated ? " (fit)" : "";
      out += "| " + r.label + " | " + r.metric + " | " + r.unit + " | " + (r.paper ? format_number(*r.paper) : "–") +
             " | " + format_number(r.ours) + " | " + format_delta(r.delta_rel()) + mark + " |\n";
    }
    if (!t.notes.empty()) {
      out += "\n";
      for (const auto& n : t.notes) out += "- " + n + "\n";
    }
  }
  return out;
}

std::string render_csv(const std::vector<Report>& tables) {
  std::string out = "table,id,label,metric,unit,paper,ours,delta_rel\n";
  for (const auto& t : tables)
    for (const auto& r : t.rows) {
      const auto d = r.delta_rel();
      out += csv_field(t.table_id) + "," + csv_field(r.id) + "," + csv_field(r.label) + "," + csv_field(r.metric) + "," +
             csv_field(r.unit) + "," + (r.paper ? format_number(*r.paper) : "") + "," + format_number(r.ours) + "," +
             (d ? format_number(*d) : "") + "\n";
    }
  return out;
}

std::string render_json(const std::vector<Report>& tables) {
  using nlohmann::json;
  json out = {{"tables", json::array()}};
  for (const auto& t : tables) {
    json rows = json::array();
    for (const auto& r : t.rows) {
      const auto d = r.delta_rel();
      rows.push_back({{"id", r.id},
                      {"label", r.label},
                      {"metric", r.metric},
                      {"unit", r.unit},
                      {"paper", r.paper ? json(*r.paper) : json(nullptr)},
                      {"ours", r.ours},
                      {"delta_rel", d ? json(*d) : json(nullptr)}});
    }
    out["tables"].push_back({{"id", t.table_id}, {"title", t.title}, {"source", t.source}, {"rows", rows}, {"notes", t.notes}});
  }
  return out.dump(2) + "\n";
}

std::vector<std::string> check_rows(const std::vector<Report>& tables, int& failures) {
  std::vector<std::string> failed, missed;
  int within = 0, calibrated = 0;
  failures = 0;
  for (const auto& t : tables)
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      const RowCheck check = i < t.checks.size() ? t.checks[i] : RowCheck{};
      const auto d = r.delta_rel();
      if (!d) continue;
      const std::string what = t.table_id + " / " + r.label + " / " + r.metric + ": paper " + format_number(*r.paper) +
                               ", ours " + format_number(r.ours) + " (" + format_delta(d) + ")";
      if (check.known_miss) {
        missed.push_back("  known miss, " + what + ": " + *check.known_miss);
      } else if (std::abs(*d) > check.tolerance_rel) {
        failed.push_back("  FAILED " + what + ", tolerance " + format_delta(check.tolerance_rel).substr(1));
        ++failures;
      } else {
        ++(check.calibrated ? calibrated : within);
      }
    }
  std::vector<std::string> out = {"check: " + std::to_string(within) + " rows within tolerance, " + std::to_string(calibrated) +
                                  " calibration points (an input was fitted to them), " + std::to_string(missed.size()) +
                                  " known misses (explained in their tables' notes), " + std::to_string(failures) + " failed"};
  out.insert(out.end(), failed.begin(), failed.end());
  out.insert(out.end(), missed.begin(), missed.end());
  return out;
}

std::vector<Report> merge_by_table(const std::vector<Report>& reports) {
  std::vector<Report> tables;
  for (const auto& r : reports) {
    Report* table = nullptr;
    for (auto& t : tables)
      if (t.table_id == r.table_id) table = &t;
    if (!table) {
      tables.push_back(r);
      tables.back().trace_json.reset();
      continue;
    }
    table->rows.insert(table->rows.end(), r.rows.begin(), r.rows.end());
    table->checks.insert(table->checks.end(), r.checks.begin(), r.checks.end());
    for (const auto& n : r.notes)
      if (std::find(table->notes.begin(), table->notes.end(), n) == table->notes.end()) table->notes.push_back(n);
    if (table->source.find(r.source) == std::string::npos) table->source += "; " + r.source;
  }
  return tables;
}

}  // namespace studies
