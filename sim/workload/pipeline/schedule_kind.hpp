#pragma once
// What a pipeline schedule is to everything that names it: one row of the registry
// (schedule_registry.hpp), defined in the schedule's own file beside its generator. A scenario,
// `codesim schedule`, the layout planner, a training step and the pipeline study all consult the
// row for the schedule's name, labels, shape, the requests it refuses and its closed forms.
#include <optional>
#include <string>

#include "workload/pipeline/pipeline_schedule.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"

namespace workload {

// A request a schedule cannot serve: the field ("pp", "microbatches" or "virtual") and why.
struct ScheduleRefusal {
  std::string field;
  std::string message;
};

struct ScheduleKind {
  std::string name;              // as `codesim schedule --kind` and a pipeline scenario give it: "1f1b-interleaved"
  std::string parallel_name;     // as a training scenario's /parallel/schedule gives it: "interleaved"
  std::string label;             // as reports print it: "1F1B interleaved"
  bool virtual_stages = false;   // each rank holds vpp stages (virtual pipeline stages)
  bool v_shape = false;          // the stages folded in a V, two a device: pp devices hold 2 x pp stages
  bool overlaps_chunks = false;  // runs a forward and a backward chunk overlapped (F&B)

  // Each rank's steps for `pp` ranks (devices) and `micro_batches`; the request is valid.
  Schedule (*generate)(int pp, int micro_batches, int virtual_stages) = nullptr;
  // What this schedule refuses beyond the bounds every schedule has (schedule_registry.cpp).
  std::optional<ScheduleRefusal> (*refuses)(long long pp, long long micro_batches, long long virtual_stages) = nullptr;

  // Closed forms over equal stages, as the DeepSeek-V3 report's Table 2 states them for 1F1B,
  // ZB1P and DualPipe (DualPipeV as DualPipe over its two stages per rank; the interleaved 1F1B's
  // (p - 1)(F + B) of one virtual stage's chunks, Narayanan et al., 2021). The simulated
  // schedule departs from them where stages differ, and for ZB1P and the DualPipes away from the
  // design points their formulas assume (see the pipeline study's notes).
  // The bubble on `ranks` devices, `t` one stage's chunks.
  std::optional<double> (*bubble_s)(int ranks, const PassTimes& t) = nullptr;
  // Peak in-flight activations and parameter copies for `pp` stages (none where Table 2 has none).
  std::optional<double> (*activations)(int pp) = nullptr;
  std::optional<double> parameter_copies;

  // The model's stages on `pp` ranks.
  int stages(int pp, int vpp) const { return virtual_stages ? pp * vpp : v_shape ? 2 * pp : pp; }
};

}  // namespace workload
