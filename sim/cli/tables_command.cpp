// codesim tables [--only ID] [--format md|json] [--scenarios DIR] [--check]
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/options.hpp"
#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "studies/scenario.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

// The shipped paper scenarios: ./scenarios/paper when run from a checkout, else the source tree
// this binary was built from.
std::string default_scenarios_dir() {
  if (fs::is_directory("scenarios/paper")) return "scenarios/paper";
  return std::string(CODESIM_SOURCE_DIR) + "/scenarios/paper";
}

}  // namespace

int tables_command(const Args& args) {
  po::options_description options("options");
  std::string only, format, dir;
  options.add_options()("only", po::value(&only), "print one table, by id")(
      "format", po::value(&format)->default_value("md"), "md or json")(
      "scenarios", po::value(&dir)->default_value(default_scenarios_dir()), "folder of the paper scenarios")(
      "check", po::bool_switch(), "after the tables, check every paper figure against the tolerance its scenario states; exit 1 when one is past it");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim tables [options]", options, {}, vm)) return 0;
  check_choice("--format", format, {"md", "json"});
  if (!fs::is_directory(dir)) throw core::InputError(dir, "no such scenario folder");

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());

  std::vector<studies::Scenario> scenarios;
  std::vector<std::string> ids;
  for (const auto& f : files) {
    scenarios.push_back(studies::load_scenario(f));
    if (std::find(ids.begin(), ids.end(), scenarios.back().table_id) == ids.end()) ids.push_back(scenarios.back().table_id);
  }
  if (!only.empty() && std::find(ids.begin(), ids.end(), only) == ids.end())
    throw core::InputError("--only", "'" + only + "' is not a table; " + core::allowed_list(only, ids));

  std::vector<studies::Report> reports;
  for (const auto& s : scenarios)
    if (only.empty() || s.table_id == only) reports.push_back(s.run({}));
  auto tables = studies::merge_by_table(reports);
  // The papers' order (ISCA'25 tables and figures, then the V3 report's), others after.
  const std::vector<std::string> order = {"kv-cache", "train-flops", "tpot-bound", "fp8",     "network-cost",
                                          "alltoall", "train-mpft-mrft", "routing", "latency",  "moe",      "pipeline",
                                          "kernels",  "profile"};
  auto rank = [&](const studies::Report& t) {
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), t.table_id) - order.begin());
  };
  std::stable_sort(tables.begin(), tables.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  std::cout << (format == "json" ? studies::render_json(tables) : studies::render_markdown(tables));
  if (!vm["check"].as<bool>()) return 0;
  int failures = 0;
  for (const auto& line : studies::check_rows(tables, failures)) std::cerr << line << "\n";
  return failures ? 1 : 0;
}

}  // namespace cli
