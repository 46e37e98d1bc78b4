#include "studies/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace studies {

const std::vector<std::string>& basis_names() {
  static const std::vector<std::string> names = {"simulated", "closed-form", "formula", "input", "fit"};
  return names;
}

const std::string& basis_name(Basis basis) { return basis_names().at(static_cast<std::size_t>(basis)); }

std::optional<double> ReportRow::delta_rel() const {
  if (!paper || *paper == 0) return std::nullopt;
  return (ours - *paper) / *paper;
}

std::string format_number(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

std::string id_number(double x) {
  char buffer[64];
  if (x == std::trunc(x) && std::abs(x) < 9.007199254740992e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", x);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", x);
  }
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
    out += "| row | metric | unit | paper | ours | delta | basis |\n|---|---|---|---:|---:|---:|---|\n";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      const RowCheck check = i < t.checks.size() ? t.checks[i] : RowCheck{};
      const std::string mark = r.paper && check.known_miss ? " (miss)" : "";
      out += "| " + r.label + " | " + r.metric + " | " + r.unit + " | " + (r.paper ? format_number(*r.paper) : "–") +
             " | " + (std::isfinite(r.ours) ? format_number(r.ours) : "–") + " | " + format_delta(r.delta_rel()) +
             mark + " | " + (r.paper ? basis_name(r.basis) : "–") + " |\n";
    }
    if (!t.notes.empty()) {
      out += "\n";
      for (const auto& n : t.notes) out += "- " + n + "\n";
    }
  }
  return out;
}

std::string render_csv(const std::vector<Report>& tables) {
  std::string out = "table,id,label,metric,unit,paper,ours,delta_rel,basis\n";
  for (const auto& t : tables)
    for (const auto& r : t.rows) {
      const auto d = r.delta_rel();
      out += csv_field(t.table_id) + "," + csv_field(r.id) + "," + csv_field(r.label) + "," + csv_field(r.metric) +
             "," + csv_field(r.unit) + "," + (r.paper ? format_number(*r.paper) : "") + "," +
             (std::isfinite(r.ours) ? format_number(r.ours) : "") + "," + (d ? format_number(*d) : "") + "," +
             (r.paper ? basis_name(r.basis) : "") + "\n";
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
                      {"delta_rel", d ? json(*d) : json(nullptr)},
                      {"basis", r.paper ? json(basis_name(r.basis)) : json(nullptr)}});
    }
    out["tables"].push_back(
        {{"id", t.table_id}, {"title", t.title}, {"source", t.source}, {"rows", rows}, {"notes", t.notes}});
  }
  return out.dump(2) + "\n";
}

namespace {

bool same_sign(double a, double b) { return (a < 0) == (b < 0) || a == 0 || b == 0; }

}  // namespace

std::vector<std::string> check_rows(const std::vector<Report>& tables, int& failures) {
  std::vector<std::string> failed, missed;
  std::vector<int> within(basis_names().size(), 0);
  failures = 0;
  auto fail = [&](const std::string& line) {
    failed.push_back("  FAILED " + line);
    ++failures;
  };
  for (const auto& t : tables)
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      if (!r.paper) continue;
      const RowCheck check = i < t.checks.size() ? t.checks[i] : RowCheck{};
      const std::string where = t.table_id + " / " + r.label + " / " + r.metric;
      if (!std::isfinite(r.ours)) {
        fail(where + ": ours is " + format_number(r.ours) + ", not a finite number");
        continue;
      }
      // Relative where the paper's figure is not 0; there the scenario states an absolute bound.
      const bool absolute = *r.paper == 0;
      const double delta = absolute ? r.ours : (r.ours - *r.paper) / *r.paper;
      auto shown = [&](double d) { return absolute ? format_number(d) + " absolute" : format_delta(d); };
      const std::string what =
          where + ": paper " + format_number(*r.paper) + ", ours " + format_number(r.ours) + " (" + shown(delta) + ")";
      if (absolute && !check.tolerance_abs) {
        fail(what + ": a paper figure of 0 needs the scenario's tolerance_abs");
        continue;
      }
      const double tolerance = absolute ? *check.tolerance_abs : check.tolerance_rel;
      const bool in_tolerance = std::abs(delta) <= tolerance;
      if (check.known_miss) {
        const double recorded = check.known_miss->delta;
        if (in_tolerance)
          fail(what + " is a known miss within tolerance " + shown(tolerance).substr(absolute ? 0 : 1) +
               ": remove it from known_misses");
        else if (!same_sign(delta, recorded) || std::abs(delta) > std::abs(recorded))
          fail(what + ": the known miss was recorded at " + shown(recorded) + " and is now past it");
        else
          missed.push_back("  known miss, " + what + ": " + check.known_miss->reason);
      } else if (!in_tolerance) {
        fail(what + ", tolerance " + shown(tolerance).substr(absolute ? 0 : 1));
      } else {
        ++within[static_cast<std::size_t>(r.basis)];
      }
    }
  int total = 0;
  std::string by_basis;
  for (std::size_t b = 0; b < within.size(); ++b) {
    total += within[b];
    by_basis += (b ? ", " : "") + std::to_string(within[b]) + " " + basis_names()[b];
  }
  std::vector<std::string> out = {"check: " + std::to_string(total) + " rows within tolerance (" + by_basis + "), " +
                                  std::to_string(missed.size()) + " known misses (explained in their tables' notes), " +
                                  std::to_string(failures) + " failed"};
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
