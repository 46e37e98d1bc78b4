// codesim bench [--scenarios DIR] [--repeat N]: wall time of every shipped paper scenario.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/report/report.hpp"
#include "studies/run/scenario.hpp"

namespace cli {

namespace fs = std::filesystem;

int bench_command(const Args& args) {
  if (!args.empty() && args[0] == "network") return bench_network_command(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "moe") return bench_moe_command(Args(args.begin() + 1, args.end()));
  po::options_description options("options");
  std::string dir;
  int repeat = 3;
  options.add_options()("scenarios", po::value(&dir)->default_value("scenarios/paper"), "folder of scenarios to time")(
      "repeat", po::value(&repeat)->default_value(3), "runs per scenario; the fastest is reported");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench [options]      time every shipped paper scenario\n"
                           "       codesim bench network [options]  fabric building and all-to-all at scale\n"
                           "       codesim bench moe                routing 262,144 tokens and their dispatch matrices",
                     options, {}, vm))
    return 0;
  if (!fs::is_directory(dir)) throw core::InputError(dir, "no such scenario folder");
  if (repeat < 1 || repeat > 1000) throw core::InputError("--repeat", std::to_string(repeat) + " is not from 1 to 1000");

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());

  std::cout << "| scenario | rows | best wall [ms] |\n|---|---:|---:|\n";
  for (const auto& f : files) {
    double best = 1e300;
    std::size_t rows = 0;
    for (int i = 0; i < repeat; ++i) {
      const auto start = std::chrono::steady_clock::now();
      rows = studies::load_scenario(f).run({}).rows.size();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::cout << "| " << fs::path(f).filename().string() << " | " << rows << " | " << studies::format_number(best * 1e3)
              << " |\n";
  }
  rusage usage{};
  // The fluid engine runs in this process, the SimGrid engine in forked children.
  getrusage(RUSAGE_SELF, &usage);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  std::cout << "\npeak RSS: " << std::max(usage.ru_maxrss, children.ru_maxrss) / 1024 << " MiB\n";
  return 0;
}

}  // namespace cli
