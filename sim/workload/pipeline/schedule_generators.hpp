#pragma once
// Generators of the published pipeline schedules, each following its reference algorithm as
// restated in shared/notes/schedules.md. Arguments are validated by schedule_for (below);
// generators assume valid input.
#include <string>
#include <vector>

#include "workload/pipeline/pipeline_schedule.hpp"

namespace workload {

Schedule one_f_one_b(int pp, int micro_batches);
Schedule one_f_one_b_interleaved(int pp, int micro_batches, int virtual_stages);
Schedule zb1p(int pp, int micro_batches);
Schedule dualpipe(int pp, int micro_batches);   // micro_batches counts both directions
Schedule dualpipev(int devices, int micro_batches);

std::vector<std::string> schedule_kinds();

// Validates the request (InputError naming `where` + the field) and generates it.
struct ScheduleRequest {
  std::string kind;
  long long pp = 0;
  long long micro_batches = 0;
  long long virtual_stages = 1;
};
Schedule schedule_for(const ScheduleRequest& request, const std::string& where = "");
// The same checks without generating: for validating a scenario before anything runs.
void check_schedule_request(const ScheduleRequest& request, const std::string& where = "");

}  // namespace workload
