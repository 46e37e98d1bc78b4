#pragma once
// How a rank that computes prompts fills its step: whether it steps its prompts alone (decoding
// paused), whether a prompt goes whole or in chunks within the token budget, and whether it
// admits new prompts now. One file per scheduler, each listed once in scheduler_registry.cpp;
// floor/prefill_rank.cpp asks them.
#include <string>
#include <vector>

#include "serving/floor/floor.hpp"

namespace serving {

class RankScheduler {
 public:
  virtual ~RankScheduler() = default;
  // Whether the rank's step this time is of prompts alone, its decoding paused.
  virtual bool prompts_only(const Floor&, const Unit&, const Rank&) const { return false; }
  // Whether a prompt is computed whole in one step (alone where it is larger than the budget)
  // rather than in chunks within the step's token budget.
  virtual bool whole_prompts() const = 0;
  // Whether the rank admits new prompts at this step.
  virtual bool admitting(const Unit&, const Rank&) const { return true; }
  // Whether a prompt is admitted only while the rank's pages hold every admitted sequence to its
  // last token (Rank::promised_pages), so none is preempted.
  virtual bool reserves_to_end() const { return false; }
};

// The pages a sequence holds at its last token: what a scheduler that reserves to the end
// promises at its admission and frees at its finish or preemption.
long long promised_pages(const Floor& f, const UnitConfig& config, int id);

// Whether a colocated rank could admit its first waiting prompt now.
bool can_admit(const Floor& f, const Unit& unit, const Rank& rank);

// The registry (scheduler_registry.cpp).
const RankScheduler& scheduler_for(Scheduler kind);

}  // namespace serving
