// Guaranteed no eviction (TensorRT-LLM's default capacity scheduler, GUARANTEED_NO_EVICT, with
// its default of whole prompts, chunked prefill off): a prompt is admitted only while the rank's
// pages can hold every admitted sequence to its last token, so no sequence is ever preempted;
// prompts and decoding share a step (in-flight batching).
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

class GuaranteedNoEvict : public RankScheduler {
 public:
  bool whole_prompts() const override { return true; }
  bool reserves_to_end() const override { return true; }
};

}  // namespace

const RankScheduler& guaranteed_no_evict_scheduler() {
  static const GuaranteedNoEvict kScheduler;
  return kScheduler;
}

}  // namespace serving
