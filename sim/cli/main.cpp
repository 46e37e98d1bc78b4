// codesim: simulate large-model training and inference clusters; see README.md.
#include <malloc.h>

#include <boost/program_options/errors.hpp>
#include <iostream>
#include <string>

#include "cli/commands.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/version.hpp"
#include "studies/config/output_file.hpp"

namespace {

constexpr const char* kUsage =
    "usage: codesim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.json     run a scenario and print its report\n"
    "  validate SCENARIO.json  check a scenario without running it\n"
    "  tables                regenerate the paper's tables from the shipped scenarios\n"
    "  sweep SWEEP.json      run a scenario over a grid of parameters, in parallel, resumable\n"
    "  merge --out FILE ...  join the results of sweep shards\n"
    "  plan SCENARIO.json    rank every training layout that fits in memory by tokens per second\n"
    "  serve-plan SCENARIO.json  serving: units a load needs, the prefill:decode ratio, throughput over batch caps\n"
    "  serve-search SEARCH.json  serving: each configuration's highest rate within the SLO, ranked by cost per million tokens\n"
    "  schedule              print a pipeline schedule's op order per rank\n"
    "  fp8 gemm|cast         FP8 numerics: GEMM accuracy with Hopper-like accumulation, conversions\n"
    "  bench                 time every shipped paper scenario, the tables and validation\n"
    "  calibrate TRACE.json  per-op GPU times of a PyTorch profiler trace, and a calibration file\n"
    "  fabric SCENARIO.json  a scenario's fabric and the components its faults may name (--list: all)\n"
    "  kernel gemm|attention|memory|collective  one kernel's time by the models (--in FILE.jsonl: many, against measured times)\n"
    "\n"
    "  codesim <command> --help   options of a command\n"
    "  codesim --version\n"
    "  codesim --data DIR <command> ...   search DIR for data files (GPUs, models, GEMM libraries, ...) before the\n"
    "                        built-in ones; CODESIM_DATA=DIR[:DIR...] does the same\n";

// Runs the command named `name` and returns its exit code.
int command(const std::string& name, const cli::Args& rest) {
  if (name == "run") return cli::run_command(rest);
  if (name == "validate") return cli::validate_command(rest);
  if (name == "tables") return cli::tables_command(rest);
  if (name == "bench") return cli::bench_command(rest);
  if (name == "schedule") return cli::schedule_command(rest);
  if (name == "sweep") return cli::sweep_command(rest);
  if (name == "merge") return cli::merge_command(rest);
  if (name == "plan") return cli::plan_command(rest);
  if (name == "serve-plan") return cli::serve_plan_command(rest);
  if (name == "serve-search") return cli::serve_search_command(rest);
  if (name == "fp8") return cli::fp8_command(rest);
  if (name == "calibrate") return cli::calibrate_command(rest);
  if (name == "fabric") return cli::fabric_command(rest);
  if (name == "kernel") return cli::kernel_command(rest);
  std::cerr << "codesim: '" << name << "' is not a command\n" << kUsage;
  return core::kInputErrorExitCode;
}

}  // namespace

int main(int argc, char** argv) {
  studies::remove_temporaries_on_signals();
  std::vector<std::string> all(argv + 1, argv + argc);
  std::vector<std::string> data_dirs;  // --data DIR before the command
  while (!all.empty() && (all[0] == "--data" || all[0].rfind("--data=", 0) == 0)) {
    if (all[0] == "--data" && all.size() < 2) {
      std::cerr << "codesim: --data: is missing its folder\n";
      return core::kInputErrorExitCode;
    }
    const bool joined = all[0] != "--data";
    data_dirs.push_back(joined ? all[0].substr(7) : all[1]);
    all.erase(all.begin(), all.begin() + (joined ? 1 : 2));
  }
  if (all.empty() || all[0] == "--help" || all[0] == "-h") {
    (all.empty() ? std::cerr : std::cout) << kUsage;
    return all.empty() ? core::kInputErrorExitCode : 0;
  }
  if (all[0] == "--version") {
    std::cout << "codesim " << core::kVersion << "\n";
    return 0;
  }
  const cli::Args rest(all.begin() + 1, all.end());
  // Freed memory kept for the next simulation instead of given back and faulted in, zeroed,
  // again: a run of several (the fault cases, the tables) allocates the same large arrays over
  // and over, and the kernel's zeroing of them was a sixth of a 2,048-GPU fault case.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's most: larger arrays are still mapped on their own
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  try {
    for (const auto& dir : data_dirs) core::add_data_dir(dir, "--data");
    core::add_data_dirs_from_environment();
    const int code = command(all[0], rest);
    // A report that could not be written (a full disk, a closed pipe) is not a success.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "codesim: standard output: the write failed\n";
      return core::kInputErrorExitCode;
    }
    return code;
  } catch (const core::InputError& e) {
    std::cerr << "codesim: " << e.what() << "\n";
    return core::kInputErrorExitCode;
  } catch (
      const boost::program_options::error_with_option_name& e) {  // the flag first, as every bad input names its field
    std::cerr << "codesim: " << (e.get_option_name().empty() ? all[0] : e.get_option_name()) << ": " << e.what()
              << " (see codesim " << all[0] << " --help)\n";
    return core::kInputErrorExitCode;
  } catch (const boost::program_options::error& e) {
    std::cerr << "codesim " << all[0] << ": " << e.what() << " (see codesim " << all[0] << " --help)\n";
    return core::kInputErrorExitCode;
  } catch (const std::exception& e) {
    std::cerr << "codesim: internal error: " << e.what() << "\n";
    return 1;
  }
}
