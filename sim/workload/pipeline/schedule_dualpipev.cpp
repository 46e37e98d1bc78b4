// DualPipeV, DualPipe "cut in half": N devices, 2N stages, device r holds stages r and
// 2N - 1 - r; every micro-batch enters at device 0, turns at device N - 1 and leaves at device
// 0. Device r runs DualPipe rank r's phases with PP = 2N and all micro-batches in each lane.
#include "workload/pipeline/dualpipe_phases.hpp"
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

Schedule dualpipev(int devices, int micro_batches) {
  Schedule s;
  s.kind = "dualpipev";
  s.ranks = devices;
  s.micro_batches = micro_batches;
  s.show_lane = true;
  s.stages_per_rank = 2;
  const int stages = 2 * devices;
  std::vector<int> path(stages);
  for (int pos = 0; pos < stages; ++pos) path[pos] = pos < devices ? pos : stages - 1 - pos;
  s.paths.assign(micro_batches, path);
  s.steps.resize(devices);
  for (int r = 0; r < devices; ++r) {
    DualPipeRank k{devices, r, micro_batches, r == devices - 1};
    dualpipe_phases(k, [&](Step step) {
      for (auto& c : step.chunks) {
        c.flow = c.micro_batch;
        c.position = c.lane == 0 ? r : stages - 1 - r;
      }
      s.steps[r].push_back(std::move(step));
    });
  }
  return s;
}

ScheduleKind dualpipev_kind() {
  ScheduleKind k;
  k.name = k.parallel_name = "dualpipev";
  k.label = "DualPipeV";
  k.v_shape = true;
  k.overlaps_chunks = true;
  k.generate = [](int devices, int m, int) { return dualpipev(devices, m); };
  k.refuses = [](long long pp, long long m, long long) -> std::optional<ScheduleRefusal> {
    if (m < 2 * pp)
      return ScheduleRefusal{"microbatches", std::to_string(m) + " is too few; DualPipeV on " + std::to_string(pp) +
                                                 " devices needs at least 2 x devices = " + std::to_string(2 * pp)};
    return std::nullopt;
  };
  k.bubble_s = [](int ranks, const PassTimes& t) -> std::optional<double> {
    return (ranks - 1) * (t.overlapped_s + t.backward_s - 3 * t.weight_s);  // 2 x ranks stages
  };
  k.activations = [](int pp) -> std::optional<double> { return double(pp + 1); };
  return k;
}

}  // namespace workload
