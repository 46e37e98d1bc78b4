#pragma once
// Boost.Program_Options plumbing shared by the subcommands.
#include <boost/program_options.hpp>
#include <string>

#include "cli/commands.hpp"

namespace cli {

namespace po = boost::program_options;

// Parses `args`; returns false after printing help when --help was given.
bool parse_options(const Args& args, const std::string& usage, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm);

// Checks a --format value against the allowed ones (InputError otherwise).
void check_choice(const std::string& option, const std::string& value, const std::vector<std::string>& allowed);

// An output path flag given, but blank: InputError ("--out: '' is not allowed; give a path"),
// rather than taken as the flag not given.
void check_path_given(const po::variables_map& vm, const std::string& flag, const std::string& path);

}  // namespace cli
