#include "serving/floor/completions.hpp"

#include "serving/floor/arrivals.hpp"
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

// The request as its source sent it, for its source at its finish (its lengths, its client and
// when it was sent; its prefix blocks are gone by then).
requests::Request as_sent(const Floor& f, int id) {
  const InFlight& x = f.flights[static_cast<std::size_t>(id)];
  requests::Request q;
  q.arrival_s = x.record.arrival_s;
  q.sent_s = x.state.sent ? x.record.arrival_s : -1;
  q.input_tokens = x.record.input_tokens;
  q.output_tokens = x.record.output_tokens;
  q.client = x.state.client;
  return q;
}

}  // namespace

void first_token(Floor& f, RequestRecord& rec) {
  if (rec.first_token_s < 0) {
    --f.waiting_first;
    if (f.c.autoscaling.prefill.max_latency_p90_s > 0) f.look_latency.prefill.add(f.now - rec.arrival_s);
  }
  rec.first_token_s = f.now + f.token_lag_s;
}

void finish(Floor& f, int id) {
  RequestState& l = f.state(id);
  if (f.scheduler->reserves_to_end() && !f.c.disaggregated) {
    const Unit& unit = f.unit(l.unit);
    f.rank_of(l.unit, l.rank).promised_pages -= promised_pages(f, *unit.config, id);
  }
  l.pages = 0;
  l.phase = RequestPhase::kDone;
  auto& rec = f.record(id);
  rec.finish_s = f.now + f.token_lag_s;
  if (f.c.autoscaling.decode.max_latency_p90_s > 0 && rec.output_tokens > 1 && rec.first_token_s >= 0)
    f.look_latency.decode.add((rec.finish_s - rec.first_token_s) / (rec.output_tokens - 1));
  if (f.on_record) f.on_record(rec);
  if (f.source.finished(as_sent(f, id), rec.finish_s)) pull_next(f);  // a client's next
  if (f.on_record) f.free_ids.push_back(id);
}

}  // namespace serving
