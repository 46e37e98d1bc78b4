// Every scheduler, one line each: a new scheduler is its file and a line here.
#include <array>

#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

const RankScheduler& chunked_prefill_scheduler();
const RankScheduler& prefill_first_scheduler();
const RankScheduler& static_batches_scheduler();
const RankScheduler& guaranteed_no_evict_scheduler();

namespace {

struct SchedulerKind {
  Scheduler kind;
  const char* name;
  const RankScheduler& (*get)();
};

constexpr std::array kSchedulers{
    SchedulerKind{Scheduler::kChunkedPrefill, "chunked-prefill", chunked_prefill_scheduler},
    SchedulerKind{Scheduler::kPrefillFirst, "prefill-first", prefill_first_scheduler},
    SchedulerKind{Scheduler::kStatic, "static", static_batches_scheduler},
    SchedulerKind{Scheduler::kGuaranteedNoEvict, "guaranteed-no-evict", guaranteed_no_evict_scheduler},
};

}  // namespace

long long promised_pages(const Floor& f, const UnitConfig& config, int id) {
  const RequestRecord& rec = f.flights[static_cast<std::size_t>(id)].record;
  return f.pages_for(config, rec.input_tokens + rec.output_tokens);
}

const RankScheduler& scheduler_for(Scheduler kind) {
  for (const SchedulerKind& s : kSchedulers)
    if (s.kind == kind) return s.get();
  return chunked_prefill_scheduler();
}

bool scheduler_named(const std::string& name, Scheduler& kind) {
  for (const SchedulerKind& s : kSchedulers)
    if (name == s.name) {
      kind = s.kind;
      return true;
    }
  return false;
}

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const SchedulerKind& s : kSchedulers) names.emplace_back(s.name);
  return names;
}

}  // namespace serving
