// codesim fabric SCENARIO.json [--list]: the scenario's fabric, and the components a fault may
// name ("plane 3 / leaf 12 / spine 5"), all of them with --list.
#include <iostream>
#include <map>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "net/fabric.hpp"
#include "studies/config/fabric_config.hpp"
#include "studies/config/overrides.hpp"
#include "studies/run/scenario.hpp"

namespace cli {

int fabric_command(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> sets;
  std::string scenario_path;
  bool list = false;
  options.add_options()("scenario", po::value(&scenario_path)->required(),
                        "scenario JSON file with a fabric of nodes (mpft, mrft)")(
      "list", po::bool_switch(&list), "every component a fault may name, one per line")(
      "set", po::value(&sets)->composing(), "override a field: /json/pointer=VALUE (repeatable)");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim fabric SCENARIO.json [--list] [--set /ptr=VALUE ...]", options, positional,
                     vm))
    return 0;
  nlohmann::json document = core::read_json_file(scenario_path);
  studies::apply_overrides(document, sets);
  studies::parse_scenario(document, scenario_path);  // the whole scenario valid first
  if (!document.contains("fabric") || !document["fabric"].is_object())
    throw core::InputError(scenario_path + ": /fabric", "is missing; this command lists a fabric's components");
  core::JsonReader f(document["fabric"], "/fabric");
  const std::string kind = f.one_of("kind", {"mpft", "mrft", "topology"});
  if (kind == "topology")
    throw core::InputError(scenario_path + ": /fabric/kind",
                           "'topology' is not allowed; faults name the components of a fabric of nodes (mpft, mrft)");
  net::FabricSpec spec;
  spec.kind = kind == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  studies::read_fabric_fields(f, spec, true);
  const auto names = net::fabric_component_names(spec);
  if (list) {
    for (const auto& name : names) std::cout << name << "\n";
    return 0;
  }
  std::map<std::string, std::pair<int, std::string>> by_kind;  // kind -> (count, first name)
  for (const auto& line : names) {
    const auto colon = line.find(": ");
    auto& [count, first] = by_kind[line.substr(0, colon)];
    if (count++ == 0) first = line.substr(colon + 2);
  }
  std::cout << scenario_path << ": " << (kind == "mpft" ? "multi-plane" : "multi-rail") << " fat tree, " << spec.nodes
            << " nodes of " << spec.gpus_per_node << " GPUs, " << spec.radix << "-port switches, "
            << net::fabric_leaves_per_group(spec) << " leaves per " << (kind == "mpft" ? "plane" : "rail") << ", "
            << net::fabric_spines_per_group(spec) << " spines " << (kind == "mpft" ? "per plane" : "shared")
            << (spec.nic_ports > 1 ? ", NICs of " + std::to_string(spec.nic_ports) + " ports" : "") << "\n";
  for (const auto& k : net::fault_kind_names())
    if (const auto it = by_kind.find(k); it != by_kind.end())
      std::cout << "  " << k << ": " << it->second.first << " in all, the first '" << it->second.second << "'\n";
  std::cout << "(codesim fabric " << scenario_path << " --list: all of them)\n";
  return 0;
}

}  // namespace cli
