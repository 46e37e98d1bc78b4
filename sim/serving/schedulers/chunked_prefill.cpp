// Chunked prefill (vLLM V1, SGLang): decoding tokens first, then prompt chunks within the token
// budget, new prompts admitted while pages and the batch cap allow.
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

class ChunkedPrefill : public RankScheduler {
 public:
  bool whole_prompts() const override { return false; }
};

}  // namespace

const RankScheduler& chunked_prefill_scheduler() {
  static const ChunkedPrefill kScheduler;
  return kScheduler;
}

}  // namespace serving
