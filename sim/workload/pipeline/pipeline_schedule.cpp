#include "workload/pipeline/pipeline_schedule.hpp"

namespace workload {

namespace {

std::string chunk_token(const Chunk& c, bool show_lane) {
  std::string t = c.pass == Pass::kForward ? "F" : c.pass == Pass::kWeight ? "W" : "B";
  if (show_lane) t += std::to_string(c.lane);
  if (c.pass == Pass::kBackwardInput) t += "*";
  return t + "." + std::to_string(c.micro_batch);
}

}  // namespace

std::string token(const Step& step, bool show_lane) {
  std::string t;
  for (const auto& c : step.chunks) t += (t.empty() ? "" : "&") + chunk_token(c, show_lane);
  return t;
}

std::string render_rank(const Schedule& s, int rank) {
  std::string line = "rank " + std::to_string(rank) + ":";
  for (const auto& step : s.steps.at(rank)) line += " " + token(step, s.show_lane);
  return line;
}

}  // namespace workload
