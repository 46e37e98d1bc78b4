// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism"): 1F1B's order and warm-up, so at most
// p micro-batches are in flight, with each backward split into B* (input gradient) and W
// (weight gradient). Stage r runs each W r micro-batches after its B*: the first r weight
// passes wait, and the r still waiting after the last B* fill the cool-down at the end. The
// backward wave then crosses the stages at B* speed, which is what cuts the bubble to
// (p - 1)(F + B - 2W).
#include "workload/pipeline/schedule_generators.hpp"

#include <algorithm>

namespace workload {

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

ScheduleKind zb1p_kind() {
  ScheduleKind k;
  k.name = k.parallel_name = "zb1p";
  k.label = "ZB1P";
  k.generate = [](int pp, int m, int) { return zb1p(pp, m); };
  k.refuses = [](long long, long long, long long) -> std::optional<ScheduleRefusal> { return std::nullopt; };
  k.bubble_s = [](int ranks, const PassTimes& t) -> std::optional<double> {
    return (ranks - 1) * (t.forward_s + t.backward_s - 2 * t.weight_s);
  };
  k.activations = [](int pp) -> std::optional<double> { return double(pp); };
  k.parameter_copies = 1.0;
  return k;
}

}  // namespace workload
