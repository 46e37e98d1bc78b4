// 1F1B (PipeDream-flush, Megatron's non-interleaved schedule): stage r of p runs
// min(p - r - 1, m) warm-up forwards, then alternates one forward and one full backward, then
// drains the remaining backwards.
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

namespace {

std::vector<std::vector<int>> straight_paths(int pp, int micro_batches) {
  std::vector<int> path(pp);
  for (int s = 0; s < pp; ++s) path[s] = s;
  return std::vector<std::vector<int>>(micro_batches, path);
}

}  // namespace

Schedule one_f_one_b(int pp, int m) {
  Schedule s;
  s.kind = "1f1b";
  s.ranks = pp;
  s.micro_batches = m;
  s.paths = straight_paths(pp, m);
  s.steps.resize(pp);
  for (int r = 0; r < pp; ++r) {
    auto op = [&](Pass pass, int mb) { s.steps[r].push_back({{Chunk{pass, 0, mb, mb, r}}}); };
    const int warmup = std::min(pp - r - 1, m);
    for (int i = 0; i < warmup; ++i) op(Pass::kForward, i);
    for (int i = 0; i < m - warmup; ++i) {
      op(Pass::kForward, warmup + i);
      op(Pass::kBackward, i);
    }
    for (int i = m - warmup; i < m; ++i) op(Pass::kBackward, i);
  }
  return s;
}

ScheduleKind one_f_one_b_kind() {
  ScheduleKind k;
  k.name = k.parallel_name = "1f1b";
  k.label = "1F1B";
  k.generate = [](int pp, int m, int) { return one_f_one_b(pp, m); };
  k.refuses = [](long long, long long, long long) -> std::optional<ScheduleRefusal> { return std::nullopt; };
  k.bubble_s = [](int ranks, const PassTimes& t) -> std::optional<double> {
    return (ranks - 1) * (t.forward_s + t.backward_s);
  };
  k.activations = [](int pp) -> std::optional<double> { return double(pp); };
  k.parameter_copies = 1.0;
  return k;
}

}  // namespace workload
