#include "serving/floor/arrivals.hpp"

#include <algorithm>
#include <string>

#include "core/json_reader.hpp"
#include "serving/floor/kv_transfer.hpp"
#include "serving/floor/unit_step.hpp"

namespace serving {

void pull_next(Floor& f) {
  std::optional<requests::Request> q = f.source.next();
  if (!q) return;
  ++f.result.arrived;
  RequestRecord rec;
  rec.arrival_s = q->sent_s >= 0 ? q->sent_s : q->arrival_s;  // the client's clock
  rec.input_tokens = q->input_tokens;
  rec.output_tokens = q->output_tokens;
  rec.in_window = rec.arrival_s >= f.c.warmup_s && rec.arrival_s < f.c.duration_s;
  RequestState l;
  l.sent = q->sent_s >= 0;
  l.client = q->client;
  // Until it arrives, the request as drawn waits among the few on their way (its prefix
  // blocks are read at its arrival, and no more after).
  if (f.arriving_free.empty()) {
    f.arriving_free.push_back(static_cast<int>(f.arriving.size()));
    f.arriving.emplace_back();
  }
  l.arriving = f.arriving_free.back();
  f.arriving_free.pop_back();
  const double arrival_s = q->arrival_s;
  f.arriving[static_cast<std::size_t>(l.arriving)] = std::move(*q);
  int id;
  if (f.on_record && !f.free_ids.empty()) {  // streamed: a finished request's place
    id = f.free_ids.back();
    f.free_ids.pop_back();
  } else {
    if (!f.on_record && static_cast<long long>(f.flights.size()) >= requests::kMaxRequests)
      throw requests::TooManyRequests("more than " + std::to_string(requests::kMaxRequests) +
                                      " requests arrive before " + core::describe_number(f.c.duration_s) + " s");
    id = static_cast<int>(f.flights.size());
    f.flights.emplace_back();
  }
  f.flights[static_cast<std::size_t>(id)] = {rec, l};
  f.push(arrival_s, EventKind::kArrival, id);
}

void arrive(Floor& f, int id) {
  pull_next(f);
  ++f.waiting_first;
  if (f.c.interval_s > 0) ++f.interval(f.now).arrivals;
  RequestState& l = f.state(id);
  requests::Request& q = f.arriving[static_cast<std::size_t>(l.arriving)];
  int cached = std::max(0, q.cached_tokens);
  if (q.cached_tokens < 0 && f.c.prefix_cache_blocks > 0 && !q.block_hashes.empty())
    cached = f.prefix.lookup_and_insert(q.block_hashes) * f.c.prefix_block_tokens;
  cached = std::min(cached, q.input_tokens - 1);  // the last token is computed for its logits
  l.cached = cached;
  l.prompt = q.input_tokens;
  f.record(id).cached_tokens = cached;
  q = requests::Request{};  // (its prefix blocks freed)
  f.arriving_free.push_back(l.arriving);
  l.arriving = -1;
  // A hit held outside HBM is read in before the prompt can be scheduled.
  const double fetch_s =
      f.c.prefix_fetch_Bps > 0 ? f.prefill_config().memory.kv_pages.bytes(cached) / f.c.prefix_fetch_Bps : 0.0;
  f.push(f.now + fetch_s, EventKind::kPromptReady, id);
}

std::pair<int, Rank&> place(Floor& f, RequestState& l, Side side, RequestPhase phase) {
  const auto [u, r] = f.routers[side]->choose(f.units);
  l.unit = u;
  l.rank = r;
  l.phase = phase;
  return {u, f.rank_of(u, r)};
}

void prompt_ready(Floor& f, int id) {
  RequestState& l = f.state(id);
  if (f.c.prefill_unbounded) {  // the prompt is computed the moment it can be
    auto& rec = f.record(id);
    if (rec.prefill_start_s < 0) rec.prefill_start_s = rec.prefill_end_s = f.now;
    if (f.measuring(f.now)) {
      f.result.input_tokens_in_window += l.prompt;
      f.result.computed_input_tokens_in_window += l.prompt - l.cached;
    }
    l.in_kv = l.prompt;
    send_to_decode(f, id, -1, -1);
    for (int du : f.units_to_start) start_step(f, du);
    f.units_to_start.clear();
    return;
  }
  const auto [u, rank] = place(f, l, Side::kPrefill, RequestPhase::kWaiting);
  rank.waiting.push_back(id);
  rank.pending_tokens += l.prompt - l.cached;
  rank.pending_pairs += pairs_left(l.prompt, l.cached);
  tell_router(f, u, rank);
  start_step(f, u);
}

}  // namespace serving
