// codesim tables [--only ID] [--format md|json] [--scenarios DIR] [--check]
#include <iostream>

#include "cli/options.hpp"
#include "studies/run/paper_tables.hpp"

namespace cli {

int tables_command(const Args& args) {
  po::options_description options("options");
  std::string only, format, dir;
  options.add_options()("only", po::value(&only), "print one table, by id")(
      "format", po::value(&format)->default_value("md"), "md or json")(
      "scenarios", po::value(&dir)->default_value(studies::default_paper_scenarios_dir()), "folder of the paper scenarios")(
      "check", po::bool_switch(), "after the tables, check every paper figure against the tolerance its scenario states; exit 1 when one is past it");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim tables [options]", options, {}, vm)) return 0;
  check_choice("--format", format, {"md", "json"});

  const auto tables = studies::paper_tables(dir, only);
  std::cout << (format == "json" ? studies::render_json(tables) : studies::render_markdown(tables));
  if (!vm["check"].as<bool>()) return 0;
  int failures = 0;
  for (const auto& line : studies::check_rows(tables, failures)) std::cerr << line << "\n";
  return failures ? 1 : 0;
}

}  // namespace cli
