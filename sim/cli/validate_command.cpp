// codesim validate SCENARIO.json [--set /ptr=VALUE ...]: checks a scenario without its simulations.
#include <iostream>

#include "cli/options.hpp"
#include "studies/run/scenario.hpp"

namespace cli {

int validate_command(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> sets;
  std::string scenario_path;
  options.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file")(
      "set", po::value(&sets)->composing(), "override a field: /json/pointer=VALUE (repeatable)");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim validate SCENARIO.json [--set /ptr=VALUE ...]", options, positional, vm))
    return 0;
  const studies::Scenario scenario = studies::load_scenario(scenario_path, sets);
  studies::RunOptions dry;
  dry.simulate = false;
  scenario.run(dry);  // closed-form parts only: checks that "expected" names real rows
  std::cout << scenario_path << ": valid " << scenario.kind << " scenario\n";
  return 0;
}

}  // namespace cli
