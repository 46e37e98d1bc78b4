#pragma once
// Kernel cases asked of the models in bulk (`codesim kernel --in FILE.jsonl`, codesim.kernels in
// Python): one JSON object a case, in our field names or in those of
// ../shared/measurements/*.jsonl, each timed by its model with the calibrated constants of
// data/ (nothing fitted to the cases). A case with a measured time ("time_s") gets its delta.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "studies/kernels/kernel_query.hpp"

namespace studies {

struct KernelRow {
  int line = 0;  // in the file, from 1 (0: not from a file)
  KernelCase c;
  std::optional<KernelEstimate> estimate;
  std::string error;                    // why the model refused the case
  std::string reference_note;           // a case the measurement itself refused ("error" in the row)
  std::optional<double> delta() const;  // model / reference - 1
};

// One case. `kind` names it where the object does not ("kind" in the object otherwise). Throws
// InputError naming the field (`pointer` + "/field") for a case the models cannot time.
KernelRow estimate_kernel(const nlohmann::json& object, const std::string& pointer, const std::string& kind,
                          const KernelDefaults& defaults);

// InputError for a GPU, GEMM library or attention backend given for every case that the data does
// not hold, named as `prefix` + "gpu" (the CLI's "--", Python's "").
void check_kernel_defaults(const KernelDefaults& defaults, const std::string& prefix);

// A .jsonl file of cases: lines that are not JSON objects are refused (InputError naming the file
// and line); "env" lines (the measuring device) are skipped; a case the models refuse keeps its
// row, with the reason in `error` (a measurement of a backend we do not model). InputError for a
// path that is not a regular file, defaults the data does not hold, and a file of which no case
// could be timed. `kind`: the kind of the lines that name none.
std::vector<KernelRow> estimate_kernel_file(const std::string& path, const KernelDefaults& defaults,
                                            const std::string& kind = "");
// The same for a JSON array of cases (Python's DataFrames), every row kept.
std::vector<KernelRow> estimate_kernel_list(const nlohmann::json& cases, const std::string& kind,
                                            const KernelDefaults& defaults);

// "12 of 263 cases refused (...)": what the rows refused, on one line; empty where none was.
std::string kernel_refusals(const std::vector<KernelRow>& rows);

std::string kernel_rows_csv(const std::vector<KernelRow>& rows);
nlohmann::json kernel_rows_json(const std::vector<KernelRow>& rows);
// Per family: the cases with a reference, the median delta, the median of its size, the worst.
std::vector<std::string> kernel_family_summary(const std::vector<KernelRow>& rows);

}  // namespace studies
