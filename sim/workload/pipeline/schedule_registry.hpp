#pragma once
// The pipeline schedules, one row each (schedule_kind.hpp), in the order reports and help list
// them: 1F1B, interleaved 1F1B, ZB1P, DualPipe, DualPipeV. A new schedule is one file (its
// generator and its row, declared in schedule_generators.hpp) and one line in
// schedule_registry.cpp; `codesim plan` tries the schedules it lists (studies/run/layout_plan.cpp).
// Requests are checked here, with an InputError naming `where` + the field, before a generator
// runs.
#include <string>
#include <vector>

#include "workload/pipeline/schedule_kind.hpp"

namespace workload {

const std::vector<ScheduleKind>& pipeline_schedules();
// The row named `name` (ScheduleKind::name), or null.
const ScheduleKind* find_schedule_kind(const std::string& name);
// The same where the name was checked before (check_schedule_request, or a reader's list of the
// rows' names); std::invalid_argument for a name no row has.
const ScheduleKind& schedule_kind(const std::string& name);
// Every row's name.
std::vector<std::string> schedule_kinds();

struct ScheduleRequest {
  std::string kind;
  long long pp = 0;
  long long micro_batches = 0;
  long long virtual_stages = 1;
};
// Validates the request (InputError naming `where` + the field) and generates it.
Schedule schedule_for(const ScheduleRequest& request, const std::string& where = "");
// The same checks without generating: for validating a scenario before anything runs.
void check_schedule_request(const ScheduleRequest& request, const std::string& where = "");

// The schedule's bubble in closed form (ScheduleKind::bubble_s) on `ranks` devices, `t` one
// stage's chunks.
std::optional<double> balanced_bubble_s(const std::string& schedule_kind, int ranks, const PassTimes& t);

}  // namespace workload
