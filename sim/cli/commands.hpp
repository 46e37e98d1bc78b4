#pragma once
// The subcommands of `codesim`. Each parses its own options and returns the exit code.
#include <string>
#include <vector>

namespace cli {

using Args = std::vector<std::string>;  // the arguments after the subcommand's name

int run_command(const Args& args);
int validate_command(const Args& args);
int tables_command(const Args& args);
int bench_command(const Args& args);
int bench_network_command(const Args& args);
int bench_network_scale_command(const Args& args);
int bench_moe_command(const Args& args);
int bench_goodput_command(const Args& args);
int schedule_command(const Args& args);
int fp8_command(const Args& args);
int sweep_command(const Args& args);
int merge_command(const Args& args);
int plan_command(const Args& args);
int serve_plan_command(const Args& args);
int serve_search_command(const Args& args);
int calibrate_command(const Args& args);
int fabric_command(const Args& args);
int kernel_command(const Args& args);

}  // namespace cli
