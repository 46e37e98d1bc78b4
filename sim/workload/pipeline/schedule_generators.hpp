#pragma once
// Generators of the published pipeline schedules, each following its reference algorithm as
// restated in shared/notes/schedules.md, each in its own file with its row of the registry
// (schedule_registry.hpp). Arguments are validated by schedule_for; generators assume valid input.
#include "workload/pipeline/pipeline_schedule.hpp"
#include "workload/pipeline/schedule_kind.hpp"

namespace workload {

Schedule one_f_one_b(int pp, int micro_batches);
Schedule one_f_one_b_interleaved(int pp, int micro_batches, int virtual_stages);
Schedule zb1p(int pp, int micro_batches);
Schedule dualpipe(int pp, int micro_batches);  // micro_batches counts both directions
Schedule dualpipev(int devices, int micro_batches);

// Each schedule's row of the registry.
ScheduleKind one_f_one_b_kind();
ScheduleKind one_f_one_b_interleaved_kind();
ScheduleKind zb1p_kind();
ScheduleKind dualpipe_kind();
ScheduleKind dualpipev_kind();

}  // namespace workload
