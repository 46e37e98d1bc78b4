#include "cli/options.hpp"

#include <iostream>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"

namespace cli {

bool parse_options(const Args& args, const std::string& usage, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << usage << "\n" << options;
    return false;
  }
  po::notify(vm);
  return true;
}

void check_choice(const std::string& option, const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == value) return;
  throw core::InputError(option, "'" + value + "' is unknown; " + core::allowed_list(value, allowed));
}

void check_path_given(const po::variables_map& vm, const std::string& flag, const std::string& path) {
  if (vm.count(flag) && path.find_first_not_of(" \t") == std::string::npos)
    throw core::InputError("--" + flag, "'" + path + "' is not allowed; give a path");
}

}  // namespace cli
