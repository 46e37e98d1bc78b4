// codesim schedule --kind K --pp P --microbatches M [--virtual V] [--format text|json]
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "workload/pipeline/schedule_check.hpp"
#include "workload/pipeline/schedule_registry.hpp"

namespace cli {

int schedule_command(const Args& args) {
  po::options_description options("options");
  workload::ScheduleRequest q;
  std::string format;
  const auto kinds = workload::schedule_kinds();
  std::string kind_names;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    kind_names += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i];
  options.add_options()("kind", po::value(&q.kind)->required(), kind_names.c_str())(
      "pp", po::value(&q.pp)->required(),
      "pipeline ranks (for dualpipev: devices, each holding 2 of the 2 x pp stages)")(
      "microbatches", po::value(&q.micro_batches)->required(),
      "micro-batches (for dualpipe: both directions together, 20 = 10 per direction)")(
      "virtual", po::value(&q.virtual_stages)->default_value(2), "virtual stages per rank (1f1b-interleaved)")(
      "format", po::value(&format)->default_value("text"), "text or json");
  po::variables_map vm;
  const std::string usage =
      "usage: codesim schedule --kind K --pp P --microbatches M [options]\n\n"
      "Prints the op order of every rank, one line per rank: 'rank R: TOK TOK ...'. A token is F\n"
      "(forward), B (backward) or W (weight pass), then the lane digit (DualPipe direction,\n"
      "DualPipeV or interleaved chunk), then '*' for a backward whose weight pass is deferred,\n"
      "then '.' and the micro-batch index: F0.3, B1*.2, W0.2. Overlapped chunks are joined by\n"
      "'&': F0.5&B1.1. Every printed schedule has passed the soundness checker.\n";
  if (!parse_options(args, usage, options, {}, vm)) return 0;
  check_choice("--format", format, {"text", "json"});
  const auto schedule = workload::schedule_for(q, "--");
  if (const auto problems = workload::check_schedule(schedule); !problems.empty())
    throw std::logic_error("generated schedule is unsound: " + problems.front());
  if (format == "json") {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& steps : schedule.steps) {
      nlohmann::json line = nlohmann::json::array();
      for (const auto& step : steps) line.push_back(workload::token(step, schedule.show_lane));
      ranks.push_back(line);
    }
    std::cout << nlohmann::json{{"kind", schedule.kind},
                                {"pp", q.pp},
                                {"micro_batches", q.micro_batches},
                                {"parameter_copies", schedule.stages_per_rank},
                                {"ranks", ranks}}
                     .dump(1)
              << "\n";
  } else {
    for (int r = 0; r < schedule.ranks; ++r) std::cout << workload::render_rank(schedule, r) << "\n";
  }
  return 0;
}

}  // namespace cli
