// Interleaved 1F1B (Megatron-LM, virtual pipeline stages): each device holds v model chunks;
// virtual stage c * p + r lives on device r. Forwards visit chunks in groups of p micro-batches,
// backwards in the reverse chunk order; warm-up min((p - r - 1) * 2 + (v - 1) * p, m * v).
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

Schedule one_f_one_b_interleaved(int pp, int m, int v) {
  Schedule s;
  s.kind = "1f1b-interleaved";
  s.ranks = pp;
  s.micro_batches = m;
  s.show_lane = true;
  s.stages_per_rank = v;
  std::vector<int> path(pp * v);
  for (int vs = 0; vs < pp * v; ++vs) path[vs] = vs % pp;
  s.paths.assign(m, path);
  s.steps.resize(pp);
  const int units = m * v;
  auto micro_batch = [&](int k) { return (k / (pp * v)) * pp + k % pp; };
  for (int r = 0; r < pp; ++r) {
    auto forward = [&](int k) {
      const int chunk = (k / pp) % v;
      s.steps[r].push_back({{Chunk{Pass::kForward, chunk, micro_batch(k), micro_batch(k), chunk * pp + r}}});
    };
    auto backward = [&](int k) {
      const int chunk = v - 1 - (k / pp) % v;
      s.steps[r].push_back({{Chunk{Pass::kBackward, chunk, micro_batch(k), micro_batch(k), chunk * pp + r}}});
    };
    const int warmup = std::min((pp - r - 1) * 2 + (v - 1) * pp, units);
    for (int k = 0; k < warmup; ++k) forward(k);
    for (int i = 0; i < units - warmup; ++i) {
      forward(warmup + i);
      backward(i);
    }
    for (int k = units - warmup; k < units; ++k) backward(k);
  }
  return s;
}

ScheduleKind one_f_one_b_interleaved_kind() {
  ScheduleKind k;
  k.name = "1f1b-interleaved";
  k.parallel_name = "interleaved";
  k.label = "1F1B interleaved";
  k.virtual_stages = true;
  k.generate = one_f_one_b_interleaved;
  k.refuses = [](long long pp, long long m, long long v) -> std::optional<ScheduleRefusal> {
    if (v < 1 || v > 64)
      return ScheduleRefusal{"virtual", std::to_string(v) + " is not allowed; virtual stages must be from 1 to 64"};
    if (m % pp != 0)
      return ScheduleRefusal{"microbatches",
                             std::to_string(m) +
                                 " is not allowed; interleaved 1F1B needs micro-batches divisible by pp (" +
                                 std::to_string(pp) + ")"};
    return std::nullopt;
  };
  k.bubble_s = [](int ranks, const PassTimes& t) -> std::optional<double> {
    return (ranks - 1) * (t.forward_s + t.backward_s);
  };
  k.activations = [](int) -> std::optional<double> { return std::nullopt; };
  return k;
}

}  // namespace workload
