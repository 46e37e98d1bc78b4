// The registry of pipeline schedules, request validation and dispatch to the generators.
#include "workload/pipeline/schedule_registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

const std::vector<ScheduleKind>& pipeline_schedules() {
  static const std::vector<ScheduleKind> rows = {
      one_f_one_b_kind(), one_f_one_b_interleaved_kind(), zb1p_kind(), dualpipe_kind(), dualpipev_kind(),
  };
  return rows;
}

const ScheduleKind* find_schedule_kind(const std::string& name) {
  for (const auto& kind : pipeline_schedules())
    if (kind.name == name) return &kind;
  return nullptr;
}

const ScheduleKind& schedule_kind(const std::string& name) {
  if (const ScheduleKind* kind = find_schedule_kind(name)) return *kind;
  throw std::invalid_argument("no pipeline schedule is named '" + name + "'");
}

std::vector<std::string> schedule_kinds() {
  std::vector<std::string> names;
  for (const auto& kind : pipeline_schedules()) names.push_back(kind.name);
  return names;
}

void check_schedule_request(const ScheduleRequest& q, const std::string& where) {
  using core::InputError;
  const ScheduleKind* kind = find_schedule_kind(q.kind);
  if (!kind)
    throw InputError(where + "kind", "'" + q.kind + "' is unknown; " + core::allowed_list(q.kind, schedule_kinds()));
  // Sizes past these are not real pipelines, and are refused before anything is allocated.
  constexpr long long kMaxRanks = 4096, kMaxMicroBatches = 1 << 20;
  const std::string pp_name = kind->v_shape ? "pp (devices)" : "pp";
  if (q.pp < 1 || q.pp > kMaxRanks)
    throw InputError(where + "pp", std::to_string(q.pp) + " is not allowed; " + pp_name + " must be from 1 to " +
                                       std::to_string(kMaxRanks));
  if (q.micro_batches < 1 || q.micro_batches > kMaxMicroBatches)
    throw InputError(where + "microbatches", std::to_string(q.micro_batches) +
                                                 " is not allowed; micro-batches must be from 1 to " +
                                                 std::to_string(kMaxMicroBatches));
  // Every rank holds every micro-batch's chunks: bound the product too.
  constexpr long long kMaxChunks = 1 << 22;
  const long long v = kind->virtual_stages ? std::clamp(q.virtual_stages, 1LL, 64LL) : 1;
  if (q.pp * q.micro_batches * v > kMaxChunks)
    throw InputError(where + "microbatches",
                     std::to_string(q.micro_batches) + " micro-batches on " + std::to_string(q.pp) +
                         " ranks is not allowed; pp x micro-batches (x virtual stages) must be at most " +
                         std::to_string(kMaxChunks));
  if (const auto refusal = kind->refuses(q.pp, q.micro_batches, q.virtual_stages))
    throw InputError(where + refusal->field, refusal->message);
}

Schedule schedule_for(const ScheduleRequest& q, const std::string& where) {
  check_schedule_request(q, where);
  return schedule_kind(q.kind).generate(static_cast<int>(q.pp), static_cast<int>(q.micro_batches),
                                        static_cast<int>(q.virtual_stages));
}

std::optional<double> balanced_bubble_s(const std::string& kind, int ranks, const PassTimes& t) {
  const ScheduleKind* row = find_schedule_kind(kind);
  if (!row) return std::nullopt;
  return row->bubble_s(ranks, t);
}

}  // namespace workload
