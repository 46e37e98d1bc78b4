// codesim bench goodput: the goodput Monte-Carlo at scale, a 100,000-GPU 90-day run with every
// failure kind of data/reliability/h100.json, as scenarios/goodput/sync-100k-per-replica.json
// has it (restart from a checkpoint), 1,000 runs.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/config/overrides.hpp"
#include "studies/report/report.hpp"
#include "studies/run/scenario.hpp"

namespace cli {

int bench_goodput_command(const Args& args) {
  po::options_description options("options");
  int runs = 1000, repeat = 3;
  options.add_options()("runs", po::value(&runs)->default_value(1000), "Monte-Carlo runs")(
      "repeat", po::value(&repeat)->default_value(3), "times the whole; the fastest is reported");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench goodput [options]", options, {}, vm)) return 0;
  if (runs < 1 || runs > 100000)
    throw core::InputError("--runs", std::to_string(runs) + " is not allowed; from 1 to 100000");
  if (repeat < 1 || repeat > 100)
    throw core::InputError("--repeat", std::to_string(repeat) + " is not allowed; from 1 to 100");
  const std::string file = std::string(CODESIM_SOURCE_DIR) + "/scenarios/goodput/sync-100k-per-replica.json";
  nlohmann::json doc = core::read_json_file(file);
  studies::apply_overrides(doc, {"/recovery/strategies=[\"restart\"]", "/monte_carlo/runs=" + std::to_string(runs)});
  const studies::Scenario scenario = studies::parse_scenario(doc, file);
  double best = 1e300;
  std::vector<studies::ReportRow> rows;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    rows = scenario.run({}).rows;
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  auto value = [&](const std::string& suffix) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const auto& r) { return r.id.size() >= suffix.size() && r.id.ends_with(suffix); });
    return it == rows.end() ? 0.0 : it->ours;
  };
  const double per_day = value("/interruptions_mc");
  std::cout
      << "| run | Monte-Carlo runs | interruptions a run | ETTR (Monte-Carlo) [%] | best wall [s] |\n|---|---:|---:|---:|---:|\n"
      << "| 100,000 GPUs, 90 days, sync checkpoints, restart (" << std::max(1u, std::thread::hardware_concurrency())
      << " threads) | " << runs << " | " << studies::format_number(per_day * 90) << " | "
      << studies::format_number(value("/effective_mc")) << " | " << studies::format_number(best) << " |\n";
  return 0;
}

}  // namespace cli
