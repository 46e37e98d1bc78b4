// Static batching, as before continuous batching: whole prompts, and a new batch admitted only
// once the last has left.
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

class StaticBatches : public RankScheduler {
 public:
  bool whole_prompts() const override { return true; }
  bool admitting(const Unit& unit, const Rank& rank) const override { return !unit.decodes || rank.running() == 0; }
};

}  // namespace

const RankScheduler& static_batches_scheduler() {
  static const StaticBatches kScheduler;
  return kScheduler;
}

}  // namespace serving
