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

}  // namespace workload
