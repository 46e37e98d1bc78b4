// codesim run SCENARIO.json [--set /ptr=VALUE ...] [--out DIR] [--format json|csv|md] [--trace FILE [--trace-kernels]]
// [--requests-out FILE] [--strict]
#include <filesystem>
#include <iostream>

#include "cli/options.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"
#include "studies/run/scenario.hpp"

namespace cli {

namespace {

std::string render(const std::vector<studies::Report>& reports, const std::string& format) {
  if (format == "json") return studies::render_json(reports);
  if (format == "csv") return studies::render_csv(reports);
  return studies::render_markdown(reports);
}

}  // namespace

int run_command(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> sets;
  std::string scenario_path, out_dir, format, trace_path, series_path, engine, requests_out;
  options.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file")(
      "set", po::value(&sets)->composing(), "override a field: /json/pointer=VALUE (repeatable)")(
      "out", po::value(&out_dir), "write the report into this folder instead of standard output")(
      "format", po::value(&format)->default_value("md"), "report format: json, csv or md")(
      "trace", po::value(&trace_path), "write a Chrome trace (Perfetto, chrome://tracing) of the simulation")(
      "series", po::value(&series_path),
      "write a serving fleet's figures per interval (CSV: load, units, utilisation, latency, SLO)")(
      "trace-kernels", "with --trace, a training step's trace also shows the kernels the model times inside each op")(
      "requests-out", po::value(&requests_out),
      "serving: write each request's times (arrival, scheduling delay, first token, finish, TTFT, TPOT, preemptions) as CSV")(
      "strict", "make a warning (a layout that does not fit in memory) an error")(
      "engine", po::value(&engine)->default_value("fluid"),
      "flow engine: fluid (bundled flows, progressive filling) or simgrid (one SimGrid Comm per flow: the reference, "
      "slow past a few thousand concurrent flows)");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim run SCENARIO.json [options]", options, positional, vm)) return 0;
  check_choice("--format", format, {"json", "csv", "md"});
  check_choice("--engine", engine, {"fluid", "simgrid"});
  core::set_default_engine(engine == "simgrid" ? core::EngineKind::kSimGrid : core::EngineKind::kFluid);

  // Every check that can fail comes before the work, so a bad request leaves nothing behind.
  for (const auto& [flag, path] : {std::pair<const char*, const std::string*>{"out", &out_dir},
                                   {"trace", &trace_path},
                                   {"series", &series_path},
                                   {"requests-out", &requests_out}})
    check_path_given(vm, flag, *path);
  const studies::Scenario scenario = studies::load_scenario(scenario_path, sets);
  if (!out_dir.empty()) studies::check_writable_dir(out_dir);
  if (!trace_path.empty()) {
    if (!scenario.study->gives_trace())
      throw core::InputError(
          "--trace",
          "a fleet over time keeps no trace (its records are streamed); trace the deployment without a load profile, autoscaling, a cost or series");
    studies::check_writable_file(trace_path);
  }
  if (!requests_out.empty()) {
    if (scenario.kind != "serving")
      throw core::InputError("--requests-out",
                             "scenario kind '" + scenario.kind + "' serves no requests; allowed for serving");
    if (!scenario.study->keeps_requests())
      throw core::InputError(
          "--requests-out",
          scenario.study->gives_series()
              ? "a fleet over time streams its requests' records rather than keeping them; use --series for its figures by interval"
              : "a concurrency sweep keeps the last level's requests only; give one level (--set /workload/clients=N)");
    studies::check_writable_file(requests_out);
  }
  if (!series_path.empty()) {
    if (!scenario.study->gives_series())
      throw core::InputError(
          "--series",
          "the scenario runs no fleet over time; give a serving scenario a load profile, autoscaling, a cost or series");
    studies::check_writable_file(series_path);
  }
  const bool trace_kernels = vm.count("trace-kernels") > 0;
  if (trace_kernels && trace_path.empty())
    throw core::InputError("--trace-kernels", "given without --trace FILE; add --trace FILE");
  if (trace_kernels && scenario.kind != "training-step")
    throw core::InputError("--trace-kernels",
                           "scenario kind '" + scenario.kind + "' has no ops with kernels; allowed for training-step");

  studies::RunOptions run;
  run.trace = !trace_path.empty();
  run.trace_kernels = trace_kernels;
  run.requests_out = requests_out;
  const studies::Report report = scenario.run(run);
  if (vm.count("strict") && !report.warnings.empty()) throw core::InputError(scenario_path, report.warnings.front());
  for (const auto& w : report.warnings) std::cerr << "codesim: warning: " << w << "\n";
  if (run.trace && !report.trace_json)
    throw core::InputError("--trace", "scenario kind '" + scenario.kind + "' runs no simulation, so it has no trace");

  const std::string text = render({report}, format);
  if (!series_path.empty() && !report.series_csv)
    throw core::InputError(
        "--series",
        "the scenario runs no fleet over time; give a serving scenario a load profile, autoscaling, a cost or series");
  if (!trace_path.empty()) studies::write_file_atomically(trace_path, *report.trace_json);
  if (!series_path.empty()) studies::write_file_atomically(series_path, *report.series_csv);
  if (out_dir.empty()) {
    std::cout << text;
  } else {
    const auto stem = std::filesystem::path(scenario_path).stem().string();
    const auto path = (std::filesystem::path(out_dir) / (stem + "." + format)).string();
    studies::write_file_atomically(path, text);
    std::cerr << "wrote " << path << "\n";
  }
  return 0;
}

}  // namespace cli
