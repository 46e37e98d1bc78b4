#include "serving/floor/preemption.hpp"

#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

int preempt(Floor& f, int u, Rank& rank) {
  int decoding = -1;
  int id;
  RequestState* l;
  if (!rank.prefilling.empty()) {
    id = rank.prefilling.back();
    rank.prefilling.pop_back();
    l = &f.state(id);
    rank.pending_tokens -= l->prompt - l->in_kv;
    rank.pending_pairs -= pairs_left(l->prompt, l->in_kv);
  } else {
    const DecodeSeq s = rank.decoding.leave_latest();
    id = s.id;
    l = &f.state(id);
    l->in_kv = s.in_kv;
    l->generated = s.generated;
    l->pages = f.pages_for(*f.unit(u).config, s.room);
    decoding = id;
  }
  rank.pages_used -= l->pages;
  l->pages = 0;
  ++f.record(id).preemptions;
  ++f.result.preemptions;
  if (f.c.preemption == Preemption::kSwap && l->phase == RequestPhase::kDecoding) {
    l->phase = RequestPhase::kSwapped;
    rank.swapped.push_back(id);
    return decoding;
  }
  if (f.scheduler->reserves_to_end() && !f.c.disaggregated)
    rank.promised_pages -= promised_pages(f, *f.unit(u).config, id);
  l->prompt = f.record(id).input_tokens + l->generated;
  l->in_kv = 0;
  l->cached = 0;
  l->phase = RequestPhase::kWaiting;
  if (f.c.disaggregated) {
    f.push(f.now, EventKind::kPromptReady, id);  // back through the prefill router
  } else {
    rank.waiting.push_front(id);
    rank.pending_tokens += l->prompt;
    rank.pending_pairs += pairs_left(l->prompt, 0);
  }
  return decoding;
}

}  // namespace serving
