#include "hw/gemm_library.hpp"

#include <algorithm>
#include <map>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "hw/gemm_fit.hpp"

namespace hw {

namespace {

GemmMeasurement read_row(core::JsonReader& r) {
  GemmMeasurement row;
  GemmShape& s = row.shape;
  s.kind = gemm_kind_from_name(r.one_of("kind", gemm_kind_names()));
  s.m = static_cast<double>(r.positive_integer("m", 1 << 24));
  s.n = static_cast<double>(r.positive_integer("n", 1 << 24));
  s.k = static_cast<double>(r.positive_integer("k", 1 << 24));
  s.groups = static_cast<int>(r.positive_integer("groups", 1, 4096));
  row.tflops = r.number_in("tflops", 1e-3, 1e5);  // a GFLOP/s to 100 PFLOP/s
  r.optional_string("source");                    // where a library gathers rows from several publications
  return row;
}

// A library whose rates are another's over a speedup: per row (the "speedup" its rows print) or
// one figure for a kind of kernel.
void derive_rows(GemmLibrary& lib, core::JsonReader& from,
                 const std::map<std::string, const nlohmann::json*>& documents) {
  const std::string base = from.one_of("library", [&] {
    std::vector<std::string> names;
    for (const auto& [name, doc] : documents) names.push_back(name);
    return names;
  }());
  const auto kinds = from.string_list("kinds", gemm_kind_names());
  const nlohmann::json* speedup = from.raw("speedup");
  const bool per_row = speedup && speedup->is_string() && *speedup == "per row";
  const double fixed = per_row ? 0 : from.positive_number("speedup");
  const double rounding = from.non_negative_number("speedup_uncertainty", 0);
  from.string("why");
  from.finish();
  core::JsonReader doc(*documents.at(base), "data/gemm_libraries/" + base + ".json: ");
  for (auto& item : doc.object_list("rows", "measured GEMMs")) {
    GemmMeasurement row = read_row(item);
    const double s = item.has("speedup") ? item.positive_number("speedup") : 0;
    if (std::find(kinds.begin(), kinds.end(), gemm_kind_names()[static_cast<int>(row.shape.kind)]) == kinds.end())
      continue;
    const double over = per_row ? s : fixed;
    if (over <= 0)
      throw core::InputError(item.pointer_of("speedup"), "is missing; " + lib.name + " takes each row's speedup");
    row.tflops /= over;
    row.uncertainty = rounding / over;
    lib.rows.push_back(row);
  }
}

const std::vector<GemmLibrary>& library_catalogue() {
  static const std::vector<GemmLibrary> libraries = [] {
    const auto files = core::read_data_folder("gemm_libraries");
    std::map<std::string, const nlohmann::json*> documents;
    for (const auto& [path, doc] : files)
      if (doc.contains("name") && doc["name"].is_string()) documents[doc["name"].get<std::string>()] = &doc;
    std::vector<GemmLibrary> out;
    // Libraries that hold constants from another's fit come after those they hold them from.
    for (const auto* file : core::holders_last(files)) {
      const auto& [path, doc] = *file;
      core::JsonReader r(doc, path + ": ");
      GemmLibrary lib;
      lib.name = r.string("name");
      lib.description = r.string("description");
      lib.source = r.string("source");
      lib.measured_on = &gpu_by_name(r.string("measured_on"), r.pointer_of("measured_on"));
      lib.runs_on = r.string_list("runs_on", gpu_names());
      if (r.has("scaled_to")) lib.scaled_to = r.string_list("scaled_to", gpu_names());
      const std::string precision = r.one_of("precision", gemm_precision_names());
      lib.precision = static_cast<GemmPrecision>(
          std::find(gemm_precision_names().begin(), gemm_precision_names().end(), precision) -
          gemm_precision_names().begin());
      const int min_block_m = static_cast<int>(r.positive_integer("min_block_m", 64, 256));
      if (min_block_m != 64 && min_block_m != 128)
        throw core::InputError(
            r.pointer_of("min_block_m"),
            std::to_string(min_block_m) + " is not allowed; a library's smallest M tile is 64 or 128 rows");
      if (r.has("derived_from")) {
        for (auto& from : r.object_list("derived_from", "libraries it is derived from"))
          derive_rows(lib, from, documents);
      } else {
        for (auto& item : r.object_list("rows", "measured GEMMs")) {
          GemmMeasurement row = read_row(item);
          item.non_negative_number("speedup", 0);  // over DeepSeek's internal kernels, for a derived library
          item.finish();
          lib.rows.push_back(row);
        }
      }
      GemmCalibration held_values;
      if (r.has("held_constants")) {
        core::JsonReader h = r.object("held_constants");
        std::vector<std::string> fitted;
        for (const auto& other : out)
          if (other.held_from.empty()) fitted.push_back(other.name);
        const std::string from = h.one_of("from", fitted);
        lib.held = h.string_list("constants", holdable_gemm_constants());
        h.string("why");
        h.finish();
        lib.held_from = from;
        held_values = core::find_by_name(out, from, "GEMM library", h.pointer_of("from")).constants;
      }
      r.finish();
      for (auto& row : lib.rows) row.shape.precision = lib.precision;
      // Fewer rows than constants leave the fit undetermined: say so rather than fit nothing.
      if (const std::size_t fitted = fitted_gemm_constants(lib.rows, lib.held); lib.rows.size() < fitted)
        throw core::InputError(path + ": /rows", std::to_string(lib.rows.size()) + " rows is not allowed for " +
                                                     std::to_string(fitted) +
                                                     " constants to fit; more rows, or held_constants from "
                                                     "another library's fit");
      const GemmFit fit = fit_gemm_calibration(*lib.measured_on, lib.rows, min_block_m, lib.held, held_values);
      lib.constants = fit.constants;
      lib.fit_rms_log_error = fit.rms_log_error;
      // A general-purpose library (cuBLAS, CUTLASS as PyTorch runs them: neither masked nor
      // weight-gradient kernels of its own) runs those kinds as dense GEMMs, at the dense efficiency.
      if (!lib.has(GemmKind::kWeightGradient) && !lib.has(GemmKind::kGroupedMasked)) {
        lib.constants.weight_gradient_efficiency = lib.constants.mma_efficiency;
        lib.constants.masked_mma_efficiency = lib.constants.mma_efficiency;
      }
      out.push_back(std::move(lib));
    }
    return out;
  }();
  return libraries;
}

}  // namespace

bool GemmLibrary::has(GemmKind kind) const {
  return std::any_of(rows.begin(), rows.end(), [&](const GemmMeasurement& r) { return r.shape.kind == kind; });
}

bool GemmLibrary::runs_on_gpu(const std::string& gpu) const {
  return std::find(runs_on.begin(), runs_on.end(), gpu) != runs_on.end() || scaled_for(gpu);
}

bool GemmLibrary::scaled_for(const std::string& gpu) const {
  return std::find(scaled_to.begin(), scaled_to.end(), gpu) != scaled_to.end();
}

std::vector<std::string> gemm_library_names() { return core::names_of(library_catalogue()); }

const GemmLibrary& gemm_library(const std::string& name, const std::string& where) {
  return core::find_by_name(library_catalogue(), name, "GEMM library", where);
}

const GemmLibrary& default_gemm_library() {
  static const GemmLibrary& lib = gemm_library("deepgemm-2025-05", "default GEMM library");
  return lib;
}

const GemmLibrary& default_gemm_library(GemmPrecision precision, const std::string& gpu) {
  // FP8 on the GPUs DeepGEMM runs on is DeepGEMM; elsewhere, and in BF16 and FP4, the library of
  // that precision measured for the GPU (or its generation).
  if (precision == GemmPrecision::kFp8 && default_gemm_library().runs_on_gpu(gpu)) return default_gemm_library();
  for (const auto& lib : library_catalogue())
    if (lib.precision == precision && lib.runs_on_gpu(gpu)) return lib;
  return default_gemm_library();
}

void require_gemm_kinds(const GemmLibrary& library, const std::vector<GemmKind>& kinds, const std::string& where) {
  for (GemmKind kind : kinds) {
    if (library.has(kind)) continue;
    std::string with;
    for (const auto& other : library_catalogue())
      if (other.has(kind)) with += (with.empty() ? "" : ", ") + other.name;
    throw core::InputError(where, "'" + library.name + "' is not allowed; it has no published " +
                                      gemm_kind_names()[static_cast<int>(kind)] +
                                      " GEMMs to time them by (libraries that have: " + with + ")");
  }
}

const std::vector<std::string>& gemm_kind_names() {
  static const std::vector<std::string> names = {"dense", "grouped-contiguous", "grouped-masked", "weight-gradient"};
  return names;
}

GemmKind gemm_kind_from_name(const std::string& name) {
  const auto& names = gemm_kind_names();
  return static_cast<GemmKind>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace hw
