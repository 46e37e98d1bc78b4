#include "studies/run/kernel_cases.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "hw/attention_backend.hpp"
#include "hw/gemm_library.hpp"
#include "hw/gpu.hpp"
#include "studies/network/collective_query.hpp"
#include "studies/report/report.hpp"

namespace studies {

namespace {

// Fields a measurement carries beside the case: read, and kept out of the model.
const std::vector<std::string> kAnnotations = {"tag", "tflops", "GBps", "note", "timing", "layout", "label", "id"};

std::string number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::optional<double> KernelRow::delta() const {
  if (!estimate || !c.reference_s) return std::nullopt;
  return estimate->seconds / *c.reference_s - 1;
}

KernelRow estimate_kernel(const nlohmann::json& object, const std::string& pointer, const std::string& kind,
                          const KernelDefaults& defaults) {
  if (!object.is_object())
    throw core::InputError(pointer, core::describe(object) + " is not allowed; a case is a JSON object");
  core::JsonReader r(object, pointer);
  KernelRow row;
  KernelCase& c = row.c;
  c.kind = kind.empty() ? r.one_of("kind", kernel_kinds()) : kind;
  if (!kind.empty() && r.has("kind")) r.string("kind");
  if (r.has("time_s")) {
    // Below a nanosecond is no kernel's time but a unit slip (and its ratio to ours overflows).
    c.reference_s = r.positive_number("time_s");
    if (*c.reference_s < 1e-9)
      throw core::InputError(r.pointer_of("time_s"), core::describe_number(*c.reference_s) +
                                                         " is not allowed; a kernel's time in seconds, at least 1e-9");
  }
  if (r.has("error")) row.reference_note = r.string("error");
  for (const auto& key : kAnnotations)
    if (r.has(key)) r.raw(key);
  // The measurements' GEMM rows say how the FP8 operands were scaled; their family says it too.
  if ((c.kind == "gemm" || c.kind == "grouped_gemm") && r.has("scaling")) {
    const std::string scaling = r.string("scaling");
    const std::string precision = r.has("precision") ? r.string("precision") : "fp8";
    c.family = std::string(c.kind == "gemm" ? "gemm " : "grouped ") + precision +
               (scaling == "none" ? "" : " " + scaling + "-scaled");
  }
  if (c.kind == "gemm" || c.kind == "grouped_gemm")
    row.estimate = estimate_gemm(r, defaults, c);
  else if (c.kind == "attention")
    row.estimate = estimate_attention(r, defaults, c);
  else if (c.kind == "memory")
    row.estimate = estimate_memory(r, defaults, c);
  else
    row.estimate = estimate_collective(r, c);
  r.finish();
  return row;
}

void check_kernel_defaults(const KernelDefaults& defaults, const std::string& prefix) {
  hw::gpu_by_name(defaults.gpu, prefix + "gpu");
  if (!defaults.library.empty()) hw::gemm_library(defaults.library, prefix + "library");
  if (!defaults.backend.empty()) hw::attention_backend(defaults.backend, prefix + "backend");
}

std::string kernel_refusals(const std::vector<KernelRow>& rows) {
  std::size_t refused = 0;
  std::map<std::string, std::size_t> reasons;  // by what the message says past its place
  for (const auto& row : rows)
    if (!row.error.empty()) {
      ++refused;
      const std::size_t at = row.error.find(": /");
      std::string reason = at == std::string::npos ? row.error : row.error.substr(at + 2);
      ++reasons[reason.substr(0, reason.find(';'))];
    }
  if (refused == 0) return "";
  std::string text = std::to_string(refused) + " of " + std::to_string(rows.size()) +
                     " cases refused by the models (each row's error says why):";
  std::size_t shown = 0;
  for (const auto& [reason, count] : reasons) {
    if (++shown > 3) {
      text += " ...";
      break;
    }
    text += (shown > 1 ? ";" : "") + std::string(" ") + std::to_string(count) + " x " + reason;
  }
  return text;
}

std::vector<KernelRow> estimate_kernel_list(const nlohmann::json& cases, const std::string& kind,
                                            const KernelDefaults& defaults) {
  if (!cases.is_array()) throw core::InputError("cases", "a list of cases is expected");
  check_kernel_defaults(defaults, "");
  std::vector<KernelRow> rows;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string pointer = "cases/" + std::to_string(i);
    try {
      rows.push_back(estimate_kernel(cases[i], pointer, kind, defaults));
    } catch (const core::InputError& e) {
      KernelRow row;
      row.c.kind = kind;
      row.error = e.what();
      rows.push_back(row);
    }
    rows.back().line = static_cast<int>(i) + 1;
  }
  return rows;
}

std::vector<KernelRow> estimate_kernel_file(const std::string& path, const KernelDefaults& defaults,
                                            const std::string& default_kind) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw core::InputError(path, std::filesystem::exists(path, ec)
                                     ? "is not a regular file (a directory or a device); give a .jsonl file of cases"
                                     : "cannot open the file (missing or unreadable)");
  check_kernel_defaults(defaults, "");
  std::ifstream in(path);
  if (!in) throw core::InputError(path, "cannot open the file");
  std::vector<KernelRow> rows;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(line);
    const nlohmann::json object = core::parse_json_text(text, where);
    if (!object.is_object())
      throw core::InputError(where, core::describe(object) + " is not allowed; each line is a case, a JSON object");
    const bool named = object.contains("kind") && object["kind"].is_string();
    const std::string kind = named ? object["kind"].get<std::string>() : default_kind;
    if (kind == "env") continue;  // the measuring device
    // A row the measurement refused whose kind is no kernel (a layout PyTorch refused): nothing to time.
    if (object.contains("error") &&
        std::find(kernel_kinds().begin(), kernel_kinds().end(), kind) == kernel_kinds().end())
      continue;
    KernelRow row;
    try {
      row = estimate_kernel(object, where + ": ", named ? "" : default_kind, defaults);
    } catch (const core::InputError& e) {
      row.c.kind = kind;
      row.error = e.what();
      if (object.contains("time_s") && object["time_s"].is_number()) row.c.reference_s = object["time_s"].get<double>();
    }
    row.line = line;
    rows.push_back(row);
  }
  // A file the models time nothing of is not a result: its first refusal says why.
  const bool any_timed =
      std::any_of(rows.begin(), rows.end(), [](const KernelRow& r) { return r.estimate.has_value(); });
  if (!any_timed)
    throw core::InputError(path, rows.empty() ? "holds no case; give one JSON object a line"
                                              : "none of its " + std::to_string(rows.size()) +
                                                    " cases could be timed; the first: " + rows.front().error);
  return rows;
}

std::string kernel_rows_csv(const std::vector<KernelRow>& rows) {
  std::string out =
      "line,kind,family,case,model,time_s,rate,rate_unit,bound,terms,reference_s,delta,error,reference_note\n";
  for (const auto& row : rows) {
    const auto& e = row.estimate;
    std::string terms;
    if (e)
      for (const auto& [name, value] : e->terms) terms += (terms.empty() ? "" : " ") + name + "=" + number(value);
    out += std::to_string(row.line) + "," + csv_field(row.c.kind) + "," + csv_field(row.c.family) + "," +
           csv_field(row.c.description) + "," +
           (e ? csv_field(e->model) + "," + number(e->seconds) + "," + number(e->rate) + "," + e->rate_unit + "," +
                    e->bound
              : ",,,,") +
           "," + csv_field(terms) + "," + (row.c.reference_s ? number(*row.c.reference_s) : "") + "," +
           (row.delta() ? number(*row.delta()) : "") + "," + csv_field(row.error) + "," +
           csv_field(row.reference_note) + "\n";
  }
  return out;
}

nlohmann::json kernel_rows_json(const std::vector<KernelRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json j = {{"line", row.line},
                        {"kind", row.c.kind},
                        {"family", row.c.family},
                        {"case", row.c.description},
                        {"error", row.error}};
    j["reference_s"] = row.c.reference_s ? nlohmann::json(*row.c.reference_s) : nlohmann::json();
    j["delta"] = row.delta() ? nlohmann::json(*row.delta()) : nlohmann::json();
    if (row.estimate) {
      const auto& e = *row.estimate;
      j["model"] = e.model;
      j["time_s"] = e.seconds;
      j["rate"] = e.rate;
      j["rate_unit"] = e.rate_unit;
      j["bound"] = e.bound;
      nlohmann::json terms = nlohmann::json::object();
      for (const auto& [name, value] : e.terms) terms[name] = value;
      j["terms"] = terms;
    }
    out.push_back(j);
  }
  return out;
}

std::vector<std::string> kernel_family_summary(const std::vector<KernelRow>& rows) {
  std::map<std::string, std::vector<double>> deltas;
  std::map<std::string, int> refused;
  for (const auto& row : rows) {
    if (row.delta()) deltas[row.c.family].push_back(*row.delta());
    if (!row.error.empty()) ++refused[row.c.family.empty() ? row.c.kind : row.c.family];
  }
  std::vector<std::string> out;
  if (deltas.empty() && refused.empty()) return out;
  out.push_back("family: cases with a measured time, median delta, median |delta|, worst delta (model / measured - 1)");
  for (const auto& [family, d] : deltas) {
    std::vector<double> size;
    for (double x : d) size.push_back(std::abs(x));
    const double worst =
        *std::max_element(d.begin(), d.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
    char line[256];
    std::snprintf(line, sizeof line, "  %-40s %3zu  %+6.1f%%  %5.1f%%  %+6.1f%%", family.c_str(), d.size(),
                  100 * median(d), 100 * median(size), 100 * worst);
    out.push_back(line);
  }
  for (const auto& [family, n] : refused)
    out.push_back("  " + family + ": " + std::to_string(n) + " cases the model refused (see the error column)");
  return out;
}

}  // namespace studies
