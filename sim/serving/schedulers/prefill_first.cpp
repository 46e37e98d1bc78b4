// Prefill first (vLLM V0's default): a step of whole prompts alone whenever one can be admitted,
// decoding paused for it.
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

bool can_admit(const Floor& f, const Unit& unit, const Rank& rank) {
  if (rank.waiting.empty() || rank.running() >= unit.config->max_running) return false;
  const RequestState& l = f.state(rank.waiting.front());
  return rank.pages_used + f.pages_for(*unit.config, l.prompt + 1) <= rank.pages_total;
}

namespace {

class PrefillFirst : public RankScheduler {
 public:
  bool prompts_only(const Floor& f, const Unit& unit, const Rank& rank) const override {
    return can_admit(f, unit, rank);
  }
  bool whole_prompts() const override { return true; }
};

}  // namespace

const RankScheduler& prefill_first_scheduler() {
  static const PrefillFirst kScheduler;
  return kScheduler;
}

}  // namespace serving
