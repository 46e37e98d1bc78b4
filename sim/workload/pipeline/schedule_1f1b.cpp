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

// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism"): 1F1B's order and warm-up, so at most
// p micro-batches are in flight, with each backward split into B* (input gradient) and W
// (weight gradient). Stage r runs each W r micro-batches after its B*: the first r weight
// passes wait, and the r still waiting after the last B* fill the cool-down at the end. The
// backward wave then crosses the stages at B* speed, which is what cuts the bubble to
// (p - 1)(F + B - 2W).
Schedule zb1p(int pp, int m) {
  const Schedule plain = one_f_one_b(pp, m);
  Schedule s = plain;
  s.kind = "zb1p";
  for (int r = 0; r < pp; ++r) {
    auto& steps = s.steps[r];
    steps.clear();
    auto weight = [&](int mb) { steps.push_back({{Chunk{Pass::kWeight, 0, mb, mb, r}}}); };
    int backwards = 0;
    for (Step step : plain.steps[r]) {
      Chunk& c = step.chunks[0];
      if (c.pass != Pass::kBackward) {
        steps.push_back(step);
        continue;
      }
      c.pass = Pass::kBackwardInput;
      steps.push_back(step);
      if (backwards >= r) weight(backwards - r);
      ++backwards;
    }
    for (int mb = std::max(0, m - r); mb < m; ++mb) weight(mb);
  }
  return s;
}

}  // namespace workload
