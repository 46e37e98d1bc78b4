// codesim bench [--scenarios DIR] [--repeat N] [--jobs N] [--validate DIR]: wall time of every
// shipped paper scenario, of each paper table and of them all as `codesim tables` runs them, of
// validating every shipped scenario, and the build's phases as setup.sh last timed them.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/report/report.hpp"
#include "studies/run/paper_tables.hpp"
#include "studies/run/scenario.hpp"
#include "studies/run/scenario_workers.hpp"
#include "studies/run/sweep_runner.hpp"

namespace cli {

namespace fs = std::filesystem;

namespace {

// The fastest of `repeat` runs of `work`, in seconds.
double best_wall_s(int repeat, const std::function<void()>& work) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

std::string ms(double seconds) { return studies::format_number(seconds * 1e3); }

}  // namespace

int bench_command(const Args& args) {
  if (!args.empty() && args[0] == "network-scale")
    return bench_network_scale_command(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "network") return bench_network_command(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "moe") return bench_moe_command(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "goodput") return bench_goodput_command(Args(args.begin() + 1, args.end()));
  po::options_description options("options");
  std::string dir, validate_dir;
  int repeat = 3;
  int jobs = studies::available_cores();
  options.add_options()("scenarios", po::value(&dir)->default_value("scenarios/paper"), "folder of scenarios to time")(
      "repeat", po::value(&repeat)->default_value(3), "runs per scenario; the fastest is reported")(
      "jobs,j", po::value(&jobs)->default_value(jobs),
      "worker processes for the tables' total, as `codesim tables --jobs`")(
      "validate", po::value(&validate_dir)->default_value("scenarios"),
      "folder whose scenarios (and its folders') are validated and timed");
  po::variables_map vm;
  if (!parse_options(
          args,
          "usage: codesim bench [options]      time every shipped paper scenario, the tables and validation\n"
          "       codesim bench network [options]  fabric building and all-to-all at scale\n"
          "       codesim bench network-scale [options]  Table 3's topologies at full size: all-to-all by classes\n"
          "       codesim bench moe                routing 262,144 tokens and their dispatch matrices\n"
          "       codesim bench goodput            the goodput Monte-Carlo of a 100,000-GPU 90-day run, 1,000 runs",
          options, {}, vm))
    return 0;
  if (!fs::is_directory(dir)) throw core::InputError(dir, "no such scenario folder");
  if (!fs::is_directory(validate_dir)) throw core::InputError(validate_dir, "no such scenario folder");
  if (repeat < 1 || repeat > 1000)
    throw core::InputError("--repeat", std::to_string(repeat) + " is not from 1 to 1000");
  studies::check_jobs(jobs);

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());

  std::cout << "| scenario | rows | best wall [ms] |\n|---|---:|---:|\n";
  std::vector<std::pair<std::string, double>> tables;  // (table id, its scenarios' walls summed), by first appearance
  for (const auto& f : files) {
    std::size_t rows = 0;
    std::string table;
    const double best = best_wall_s(repeat, [&] {
      const auto scenario = studies::load_scenario(f);
      table = scenario.table_id;
      rows = scenario.run({}).rows.size();
    });
    std::cout << "| " << fs::path(f).filename().string() << " | " << rows << " | " << ms(best) << " |\n";
    auto it = std::find_if(tables.begin(), tables.end(), [&](const auto& t) { return t.first == table; });
    if (it == tables.end()) it = tables.insert(tables.end(), {table, 0.0});
    it->second += best;
  }

  std::cout << "\n| table | best wall [ms], its scenarios one after another |\n|---|---:|\n";
  double one_core_s = 0;
  for (const auto& [table, seconds] : tables) {
    std::cout << "| " << table << " | " << ms(seconds) << " |\n";
    one_core_s += seconds;
  }
  std::cout << "| all, one after another | " << ms(one_core_s) << " |\n";
  const double all_s = best_wall_s(repeat, [&] { studies::paper_tables(dir, "", "--only", jobs); });
  std::cout << "\ntables, " << jobs << " worker process" << (jobs > 1 ? "es" : "") << " (as `codesim tables --jobs "
            << jobs << "`): " << ms(all_s) << " ms, best of " << repeat << "\n";

  // Validation: every scenario below the folder, loaded and run without simulating.
  std::vector<std::pair<double, std::string>> validated;
  for (const auto& entry : fs::recursive_directory_iterator(validate_dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string f = entry.path().string();
    try {
      validated.push_back({best_wall_s(repeat,
                                       [&] {
                                         studies::RunOptions dry;
                                         dry.simulate = false;
                                         studies::load_scenario(f).run(dry);
                                       }),
                           f});
    } catch (const core::InputError&) {  // not a scenario (a sweep, a routing file): not timed
    }
  }
  std::sort(validated.rbegin(), validated.rend());
  std::cout << "\nvalidate, " << validated.size() << " scenarios below " << validate_dir << ", slowest:";
  for (std::size_t i = 0; i < validated.size() && i < 3; ++i)
    std::cout << (i ? ", " : " ") << fs::relative(validated[i].second, validate_dir).string() << " "
              << ms(validated[i].first) << " ms";
  std::cout << "\n";

  // The build's phases, as setup.sh last timed them.
  if (std::ifstream phases{"build/setup-phases.txt"}) {
    std::cout << "\nbuild phases (setup.sh, build/setup-phases.txt):";
    std::string line;
    for (bool first = true; std::getline(phases, line); first = false) {
      const auto space = line.rfind(' ');
      if (space == std::string::npos) continue;
      std::cout << (first ? " " : ", ") << line.substr(0, space) << " " << line.substr(space + 1) << " s";
    }
    std::cout << "\n";
  }

  rusage usage{};
  // The fluid engine runs in this process, the SimGrid engine and the tables' workers in forked children.
  getrusage(RUSAGE_SELF, &usage);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  std::cout << "\npeak RSS: " << std::max(usage.ru_maxrss, children.ru_maxrss) / 1024 << " MiB\n";
  return 0;
}

}  // namespace cli
