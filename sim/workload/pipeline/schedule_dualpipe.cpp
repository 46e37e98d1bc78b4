// DualPipe (DeepSeek-V3 report §3.2.1): PP ranks, rank r holds stages r and PP - 1 - r (two
// parameter copies); direction 0 enters at rank 0, direction 1 at rank PP - 1. Ranks r and
// PP - 1 - r run the same phases with the directions swapped.
#include "workload/pipeline/dualpipe_phases.hpp"
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

Schedule dualpipe(int pp, int micro_batches) {
  Schedule s;
  s.kind = "dualpipe";
  s.ranks = pp;
  s.micro_batches = micro_batches;
  s.show_lane = true;
  s.stages_per_rank = 2;
  const int M = micro_batches / 2;
  s.paths.resize(micro_batches);
  for (int j = 0; j < M; ++j)
    for (int pos = 0; pos < pp; ++pos) {
      s.paths[j].push_back(pos);               // direction 0
      s.paths[M + j].push_back(pp - 1 - pos);  // direction 1
    }
  s.steps.resize(pp);
  for (int r = 0; r < pp; ++r) {
    const bool second_half = r >= pp / 2;
    DualPipeRank k{pp / 2, std::min(r, pp - 1 - r), M, r == pp / 2 - 1 || r == pp / 2};
    dualpipe_phases(k, [&](Step step) {
      for (auto& c : step.chunks) {
        c.lane = second_half ? 1 - c.lane : c.lane;  // local lane -> direction
        c.flow = c.lane * M + c.micro_batch;
        c.position = c.lane == 0 ? r : pp - 1 - r;
      }
      s.steps[r].push_back(std::move(step));
    });
  }
  return s;
}

ScheduleKind dualpipe_kind() {
  ScheduleKind k;
  k.name = k.parallel_name = "dualpipe";
  k.label = "DualPipe";
  k.overlaps_chunks = true;
  k.generate = [](int pp, int m, int) { return dualpipe(pp, m); };
  k.refuses = [](long long pp, long long m, long long) -> std::optional<ScheduleRefusal> {
    if (pp % 2 != 0)
      return ScheduleRefusal{"pp", std::to_string(pp) + " is odd; DualPipe needs an even number of ranks"};
    if (m % 2 != 0)
      return ScheduleRefusal{
          "microbatches", std::to_string(m) + " is odd; DualPipe splits micro-batches evenly over its two directions"};
    if (m < 2 * pp)
      return ScheduleRefusal{"microbatches", std::to_string(m) + " is too few; DualPipe on " + std::to_string(pp) +
                                                 " ranks needs at least 2 x pp = " + std::to_string(2 * pp)};
    return std::nullopt;
  };
  k.bubble_s = [](int ranks, const PassTimes& t) -> std::optional<double> {
    return (ranks / 2 - 1) * (t.overlapped_s + t.backward_s - 3 * t.weight_s);
  };
  k.activations = [](int pp) -> std::optional<double> { return double(pp + 1); };
  k.parameter_copies = 2.0;
  return k;
}

}  // namespace workload
