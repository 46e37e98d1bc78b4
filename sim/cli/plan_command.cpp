// codesim plan SCENARIO.json [--set /ptr=VALUE ...] [--top N] [--out FILE] [--jobs N]
//
// Every layout of a training-step scenario (studies/layout_plan.hpp) run analytically in worker
// processes, resumable through --out's log (cli/sweep_runner.hpp); the layouts that fit in
// memory ranked by tokens per second.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"
#include "studies/report/report.hpp"
#include "studies/run/layout_plan.hpp"
#include "studies/run/sweep_runner.hpp"

namespace cli {

namespace {

std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

int plan_command(const Args& args) {
  po::options_description options("options");
  std::string scenario_path, out;
  std::vector<std::string> sets;
  int top = 10;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.add_options()("scenario", po::value(&scenario_path)->required(), "training-step scenario JSON file")(
      "set", po::value(&sets)->composing(), "override a field of the scenario: /json/pointer=VALUE (repeatable)")(
      "top", po::value(&top)->default_value(top), "layouts to print, fastest first")(
      "out", po::value(&out), "every layout: FILE.csv (with its FILE.jsonl log) or FILE.jsonl; rerunning resumes")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker processes");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim plan SCENARIO.json [options]", options, positional, vm)) return 0;
  if (top < 1) throw core::InputError("--top", std::to_string(top) + " is not allowed; at least 1");
  studies::check_jobs(jobs);
  if (!out.empty()) {
    studies::check_results_path(out);
    studies::check_writable_file(out);
  }

  const studies::Sweep sweep = studies::plan_sweep(scenario_path, sets);
  // Without --out the log is a temporary file, gone when the plan ends.
  std::string log = out;
  bool temporary = false;
  if (log.empty()) {
    std::string name = (std::filesystem::temp_directory_path() / "codesim-plan-XXXXXX.jsonl").string();
    const int fd = ::mkstemps(name.data(), 6);
    if (fd < 0) throw core::InputError(name, "cannot create a temporary file");
    ::close(fd);
    log = name;
    temporary = true;
  }
  const bool ok = studies::run_sweep(sweep, log, jobs, 0, 1, "plan");
  const auto rows = studies::read_sweep_rows(studies::sweep_log_path(log));
  if (temporary) std::filesystem::remove(log);
  if (!ok) return 1;

  std::vector<const nlohmann::json*> fit;
  std::size_t refused = 0, too_big = 0;
  std::string first_refusal;
  for (const auto& row : rows) {
    if (!row.contains("metrics")) {
      if (refused++ == 0) first_refusal = row.value("error", std::string());
      continue;
    }
    const auto& m = row["metrics"];
    if (m.value("memory_free", -1.0) < 0) {
      ++too_big;
      continue;
    }
    fit.push_back(&row);
  }
  if (fit.empty() && too_big == 0)
    throw core::InputError(scenario_path, "no layout is valid; the first was refused with: " + first_refusal);
  // Fastest first; of equally fast layouts, the one that needs less memory.
  std::stable_sort(fit.begin(), fit.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    const double ta = (*a)["metrics"]["tokens_per_s"].get<double>(), tb = (*b)["metrics"]["tokens_per_s"].get<double>();
    if (ta != tb) return ta > tb;
    return (*a)["metrics"]["memory_total"].get<double>() < (*b)["metrics"]["memory_total"].get<double>();
  });
  std::cout << "## plan: " << scenario_path << "\n\n"
            << sweep.points.size() << " layouts: " << fit.size() << " fit in memory, " << too_big << " do not, "
            << refused << " refused by the step's rules" << (out.empty() ? "" : "; all in " + out) << ".\n\n";
  if (fit.empty()) {
    std::cout << "No layout fits in memory: more GPUs, GPUs with more memory, or a smaller model.\n";
    return 0;
  }
  std::cout
      << "| # | tp | cp | pp | vpp | dp | ep | etp | micro-batch | schedule | recompute | zero | time/step (s) | tokens/s (M) | "
         "TFLOPS/GPU (causal) | MFU % (causal) | memory (GB) |\n";
  std::cout << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < fit.size() && i < static_cast<std::size_t>(top); ++i) {
    const auto& in = (*fit[i])["inputs"];
    const auto& m = (*fit[i])["metrics"];
    std::cout << "| " << i + 1;
    for (const char* key : {"/parallel/tp", "/parallel/cp", "/parallel/pp", "/parallel/vpp", "/parallel/dp",
                            "/parallel/ep", "/parallel/etp", "/batch/micro_batch_sequences", "/parallel/schedule",
                            "/parallel/recompute", "/parallel/zero"})
      std::cout << " | " << text_of(in.at(key));
    for (const char* key : {"step", "tokens_per_s", "tflops_causal", "mfu_causal", "memory_total"})
      std::cout << " | " << studies::format_number(m.at(key).get<double>());
    std::cout << " |\n";
  }
  return 0;
}

}  // namespace cli
