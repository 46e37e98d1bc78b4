#pragma once
// A sweep: a base scenario and the points to run it at. A sweep file names the base (a path
// relative to the sweep file, or the scenario inline) and either a grid, every combination of
// values for some JSON pointers, or an explicit list of points:
//   {"base": "../paper/table4-mpft.json",
//    "grid": {"/parallel/pp": [8, 16, 32], "/parallel/schedule": ["1f1b", "dualpipe"]}}
//   {"base": {...}, "points": [{"/parallel/pp": 8}, {"/parallel/pp": 16, "/mode": "analytical"}]}
// Each point runs the base with its values set, as `--set` would, and gives one row: its index,
// its inputs and every report row's value (or the error that stopped it).
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace studies {

struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::pair<std::string, nlohmann::json>> values;  // pointer, value
};

struct Sweep {
  nlohmann::json base;
  std::string base_origin;            // for messages
  std::vector<std::string> pointers;  // every pointer any point sets, in column order
  std::vector<SweepPoint> points;
};

// Validates the sweep file (InputError naming the JSON pointer) and the base scenario, and
// refuses more points than kMaxPoints before enumerating any.
Sweep load_sweep(const std::string& path);
// The same from a document: `origin` names it in messages, a base given as a path is relative to `base_dir`.
Sweep parse_sweep(const nlohmann::json& document, const std::string& origin, const std::filesystem::path& base_dir);
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// Runs one point: {"point", "inputs": {pointer: value}, "metrics": {row id: value}, "units": {row
// id: unit}} and, when the point's scenario is refused, "error" instead of metrics and units.
nlohmann::json run_sweep_point(const Sweep& sweep, const SweepPoint& point);

// What a log's rows are checked against before they are kept (a row is "the point ran this"): a
// key per point, hashing its base scenario, its values and codesim's version, and one of the
// sweep as a whole (every point's key), which shards of one sweep share. Files a scenario names (a
// trace) are not hashed: a changed file is rerun by a new log.
struct SweepKeys {
  std::string sweep;
  std::vector<std::string> points;  // by point index
};
SweepKeys sweep_keys(const Sweep& sweep);

// A metric's column in a sweep's CSV and the Python package's frames: its row id and unit, the
// unit left out where the id ends in it ("tokens_per_s_M": millions of tokens a second;
// "memory_total_GB", "mfu_causal_pct", "step_s"; "%" reads "pct", "/" "_per_").
std::string metric_column(const std::string& id, const std::string& unit);

// Rows (sorted by point) as one CSV: point, every input pointer, every metric id (each in the
// order first seen), error. Points that lack a column leave it empty.
std::string sweep_csv(const std::vector<nlohmann::json>& rows);

}  // namespace studies
