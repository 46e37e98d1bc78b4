#pragma once
// A study is what a scenario of one kind computes: it is parsed from the scenario's JSON, then
// run to rows and notes. A new kind is one new study file plus one line in study_registry.cpp.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "studies/report/report.hpp"

namespace studies {

struct RunOptions {
  bool simulate = true;        // false: validate only; a study runs no simulation, routing or GEMM emulation
  bool trace = false;          // keep a Chrome trace of the simulation
  bool trace_kernels = false;  // and in it the kernels inside each op (training steps)
  std::string requests_out;    // serving: write each request's times here as CSV (empty: none)
};

// The value of a row whose simulation validation skipped: the row is named, its value is not.
inline constexpr double kNotRun = std::numeric_limits<double>::quiet_NaN();

struct StudyResult {
  std::vector<ReportRow> rows;  // paper values are filled in by the scenario
  std::vector<std::string> notes;
  std::optional<std::string> trace_json;
  std::optional<std::string> series_csv;  // a run's figures per interval (a serving fleet over time)
  std::vector<std::string> warnings;      // what the user should see before the numbers (e.g. does not fit in memory)
};

class Study {
 public:
  virtual ~Study() = default;
  virtual StudyResult run(const RunOptions& options) const = 0;
  // Where one step's time goes, for a study that times steps (a training step; an inference
  // step at the scenario's first point), without the rest of what run() reports; none by default.
  virtual std::optional<StudyResult> step(const RunOptions& options) const {
    (void)options;
    return std::nullopt;
  }
  // What run() can give beside its rows, asked before it runs so that an output it cannot give
  // is refused before any other is written: figures per interval (a serving fleet over time),
  // and each request's record.
  virtual bool gives_series() const { return false; }
  virtual bool keeps_requests() const { return false; }
  virtual bool gives_trace() const { return true; }  // false where a run that has one keeps none (a fleet over time)
};

// Parses the kind-specific parts of a scenario from its root object.
using StudyParser = std::unique_ptr<Study> (*)(core::JsonReader& root);

}  // namespace studies
