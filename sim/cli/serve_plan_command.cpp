// codesim serve-plan SCENARIO.json [--rate R] [--caps 1,2,4,...] [--set /ptr=VALUE ...] [--format json|csv|md] [--out
// DIR] [--series FILE]
//
// A serving scenario run with its plan (studies/serving/serve_plan.cpp, "plan"): what one prefill
// and one decode unit serve within the SLO, the ratio that balances them, the units and nodes a
// load needs (checked by simulating them together), and throughput per GPU against tokens/s per
// user over decode batch caps. The same as `codesim run` with `--set /plan={...}`. On a scenario
// with a load profile, a plan for the day: the units per interval that keep the SLO.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/report/report.hpp"

namespace cli {

namespace {

// The scenario's own `plan` object, whose fields the flags given replace; empty where it has none
// (or cannot be read: the run that follows says why).
nlohmann::json scenario_plan(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.contains("plan") && doc["plan"].is_object()) return doc["plan"];
  return nlohmann::json::object();
}

}  // namespace

int serve_plan_command(const Args& args) {
  po::options_description options("options");
  std::string scenario_path, caps, format, out_dir, series_path;
  double rate = 0;
  std::vector<std::string> sets;
  options.add_options()("scenario", po::value(&scenario_path)->required(), "serving scenario JSON file (with an slo)")(
      "rate", po::value(&rate), "the load to plan for, requests/s (default: the workload's rate)")(
      "caps", po::value(&caps),
      "decode batch caps for the throughput curve, comma-separated (default: 1, 2, 4, ... up to max_running)")(
      "set", po::value(&sets)->composing(), "override a field: /json/pointer=VALUE (repeatable)")(
      "format", po::value(&format)->default_value("md"), "report format: json, csv or md")(
      "out", po::value(&out_dir), "write the report into this folder instead of standard output")(
      "series", po::value(&series_path), "a plan for a day (a load profile): write the units per interval (CSV)");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim serve-plan SCENARIO.json [options]", options, positional, vm)) return 0;
  nlohmann::json plan = scenario_plan(scenario_path);
  if (vm.count("rate")) {
    if (!(rate >= 1e-9 && std::isfinite(rate)))
      throw core::InputError(
          "--rate", studies::format_number(rate) + " is not allowed; a finite rate of at least 1e-9 requests/s");
    plan["rate_per_s"] = rate;
  }
  if (vm.count("caps")) {
    nlohmann::json list = nlohmann::json::array();
    std::stringstream in(caps);
    std::string item;
    while (std::getline(in, item, ',')) {
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(item, &used);
      } catch (const std::exception&) { used = 0; }
      if (used != item.size() || item.empty() || v < 1)
        throw core::InputError(
            "--caps",
            "'" + item + "' is not allowed; whole numbers of sequences per DP rank, at least 1, comma-separated");
      list.push_back(v);
    }
    plan["batch_caps"] = list;
  }
  Args run{scenario_path, "--set", "/plan=" + plan.dump(), "--format", format};
  for (const auto& s : sets) {
    run.push_back("--set");
    run.push_back(s);
  }
  if (!out_dir.empty()) {
    run.push_back("--out");
    run.push_back(out_dir);
  }
  if (!series_path.empty()) {
    run.push_back("--series");
    run.push_back(series_path);
  }
  return run_command(run);
}

}  // namespace cli
