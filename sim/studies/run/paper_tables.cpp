#include "studies/run/paper_tables.hpp"

#include <algorithm>
#include <filesystem>

#include "core/data_files.hpp"
#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "studies/run/scenario.hpp"
#include "studies/run/scenario_workers.hpp"

namespace studies {

namespace fs = std::filesystem;

std::string default_paper_scenarios_dir() {
  if (fs::is_directory("scenarios/paper")) return "scenarios/paper";
  return core::shipped_dir("scenarios") + "/paper";
}

std::vector<Report> paper_tables(const std::string& dir, const std::string& only, const std::string& only_field,
                                 int workers) {
  if (!fs::is_directory(dir)) throw core::InputError(dir, "no such scenario folder");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());

  std::vector<Scenario> scenarios;
  std::vector<std::string> ids;
  for (const auto& f : files) {
    scenarios.push_back(load_scenario(f));
    if (std::find(ids.begin(), ids.end(), scenarios.back().table_id) == ids.end())
      ids.push_back(scenarios.back().table_id);
  }
  if (!only.empty() && std::find(ids.begin(), ids.end(), only) == ids.end())
    throw core::InputError(only_field, "'" + only + "' is not a table; " + core::allowed_list(only, ids));

  std::vector<const Scenario*> chosen;
  for (const auto& s : scenarios)
    if (only.empty() || s.table_id == only) chosen.push_back(&s);
  auto tables = merge_by_table(run_scenarios(chosen, workers, "tables"));
  const std::vector<std::string> order = {
      "kv-cache",   "train-flops",   "tpot-bound", "fp8",           "network-cost", "alltoall", "train-mpft-mrft",
      "routing",    "latency",       "moe",        "pipeline",      "kernels",      "profile",  "faults-alltoall",
      "stragglers", "shared-fabric", "goodput",    "serving-parts", "gpu-parts"};
  auto rank = [&](const Report& t) {
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), t.table_id) - order.begin());
  };
  std::stable_sort(tables.begin(), tables.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return tables;
}

}  // namespace studies
