// codesim sweep SWEEP.json --out FILE [--jobs N] [--shard i/N] and codesim merge --out FILE SHARDS...
//
// The points run on cli/sweep_runner.hpp: worker processes, a log that resumes.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"
#include "studies/run/sweep.hpp"
#include "studies/run/sweep_runner.hpp"

namespace cli {

int sweep_command(const Args& args) {
  po::options_description options("options");
  std::string sweep_path, out, shard = "0/1";
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.add_options()("sweep", po::value(&sweep_path)->required(), "sweep JSON file")(
      "out", po::value(&out)->required(),
      "results: FILE.jsonl (JSON Lines), or FILE.csv written at the end from its FILE.jsonl log; rerunning resumes")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker processes")(
      "shard", po::value(&shard)->default_value(shard), "run share i of N (points with index % N == i), e.g. 3/8");
  po::positional_options_description positional;
  positional.add("sweep", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim sweep SWEEP.json --out FILE [options]", options, positional, vm)) return 0;
  std::size_t shard_i = 0, shard_n = 1;
  int used = 0;
  if (std::sscanf(shard.c_str(), "%zu/%zu%n", &shard_i, &shard_n, &used) != 2 ||
      used != static_cast<int>(shard.size()) || shard_n == 0 || shard_i >= shard_n)
    throw core::InputError("--shard", "'" + shard + "' is not allowed; expected i/N with 0 <= i < N, e.g. 0/4");
  studies::check_jobs(jobs);
  studies::check_results_path(out);

  const studies::Sweep sweep = studies::load_sweep(sweep_path);
  return studies::run_sweep(sweep, out, jobs, shard_i, shard_n, "sweep") ? 0 : 1;
}

int merge_command(const Args& args) {
  po::options_description options("options");
  std::string out;
  std::vector<std::string> inputs;
  options.add_options()("out", po::value(&out)->required(), "merged results: FILE.jsonl or FILE.csv")(
      "inputs", po::value(&inputs)->composing(), "the shards' JSON Lines logs");
  po::positional_options_description positional;
  positional.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim merge --out FILE SHARD.jsonl...", options, positional, vm)) return 0;
  if (inputs.empty()) throw core::InputError("merge", "no shard logs given");
  studies::check_results_path(out);
  const std::vector<nlohmann::json> sorted = studies::merge_sweep_logs(inputs);
  std::string text;
  if (studies::is_csv(out)) {
    text = studies::sweep_csv(sorted);
  } else {
    for (const auto& row : sorted) text += row.dump() + "\n";
  }
  studies::write_file_atomically(out, text);
  std::cerr << "merged " << sorted.size() << " points into " << out << "\n";
  return 0;
}

}  // namespace cli
