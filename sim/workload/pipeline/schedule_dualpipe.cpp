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

// DualPipeV, DualPipe "cut in half": N devices, 2N stages, device r holds stages r and
// 2N - 1 - r; every micro-batch enters at device 0, turns at device N - 1 and leaves at device
// 0. Device r runs DualPipe rank r's phases with PP = 2N and all micro-batches in each lane.
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

}  // namespace workload
