// codesim tables [--only ID] [--format md|json] [--scenarios DIR] [--check] [--jobs N]
#include <iostream>

#include "cli/options.hpp"
#include "studies/run/paper_tables.hpp"
#include "studies/run/scenario_workers.hpp"
#include "studies/run/sweep_runner.hpp"

namespace cli {

int tables_command(const Args& args) {
  po::options_description options("options");
  std::string only, format, dir;
  int jobs = studies::available_cores();
  options.add_options()("only", po::value(&only), "print one table, by id")(
      "format", po::value(&format)->default_value("md"), "md or json")(
      "scenarios", po::value(&dir)->default_value(studies::default_paper_scenarios_dir()),
      "folder of the paper scenarios")(
      "check", po::bool_switch(),
      "after the tables, check every paper figure against the tolerance its scenario states; exit 1 when one is past it")(
      "jobs,j", po::value(&jobs)->default_value(jobs),
      "worker processes that run the scenarios (the output does not depend on it)");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim tables [options]", options, {}, vm)) return 0;
  check_choice("--format", format, {"md", "json"});
  studies::check_jobs(jobs);

  const auto tables = studies::paper_tables(dir, only, "--only", jobs);
  std::cout << (format == "json" ? studies::render_json(tables) : studies::render_markdown(tables));
  if (!vm["check"].as<bool>()) return 0;
  int failures = 0;
  for (const auto& line : studies::check_rows(tables, failures)) std::cerr << line << "\n";
  return failures ? 1 : 0;
}

}  // namespace cli
