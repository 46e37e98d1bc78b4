// codesim serve-search SEARCH.json --out FILE.csv [--rate REQ_PER_S] [--jobs N]
//
// A serving configuration search (studies/run/serve_search.hpp): each configuration of the grid
// with its highest rate within the scenario's SLO, run as a sweep (worker processes, a log that
// resumes), then ranked by cost per million output tokens.
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "studies/report/report.hpp"
#include "studies/run/serve_search.hpp"
#include "studies/run/sweep_runner.hpp"

namespace cli {

int serve_search_command(const Args& args) {
  po::options_description options("options");
  std::string search_path, out;
  double rate = 0;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.add_options()("search", po::value(&search_path)->required(),
                        "search JSON file: a sweep over a serving scenario, with usd_per_gpu_hour")(
      "out", po::value(&out)->required(), "every point's rows: FILE.csv or FILE.jsonl; rerunning resumes")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker processes")(
      "rate", po::value(&rate),
      "your load in requests/s: each point's copies, GPUs, headroom and cost at it, ranked by that cost");
  po::positional_options_description positional;
  positional.add("search", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim serve-search SEARCH.json --out FILE.csv [--rate REQ_PER_S] [options]",
                     options, positional, vm))
    return 0;
  studies::check_jobs(jobs);
  studies::check_results_path(out);
  if (vm.count("rate") && !(rate > 0 && rate <= 1e7))
    throw core::InputError("--rate",
                           studies::format_number(rate) + " is not allowed; a load from above 0 to 1e7 requests/s");
  const studies::ServeSearch search = studies::load_serve_search(search_path);
  if (!studies::run_sweep(search.sweep, out, jobs, 0, 1, "serve-search")) return 1;
  std::cout << studies::serve_search_ranking(search, studies::read_sweep_rows(studies::sweep_log_path(out)), rate);
  return 0;
}

}  // namespace cli
