#include "serving/floor/decode_rank.hpp"

#include <algorithm>

#include "serving/floor/kv_transfer.hpp"
#include "serving/floor/preemption.hpp"
#include "serving/floor/unit_step.hpp"

namespace serving {

void admit_incoming(Floor& f, int u, Rank& rank) {
  const Unit& unit = f.unit(u);
  const int cap = unit.config->max_running;
  while (!rank.received.empty() && rank.running() < cap) {
    const int id = rank.received.front();
    rank.received.pop_front();
    join_batch(f, u, rank, id, f.state(id));
  }
  if (rank.swapped.empty() && rank.incoming.empty()) return;
  auto room = [&](int id) {
    const long long p = f.pages_for(*unit.config, f.state(id).in_kv + 1);
    return rank.running() + rank.transferring + static_cast<int>(rank.received.size()) < 2 * cap &&
           rank.pages_used + p <= rank.pages_total;
  };
  while (!rank.swapped.empty() && room(rank.swapped.front())) {
    const int id = rank.swapped.front();
    rank.swapped.pop_front();
    RequestState& l = f.state(id);
    l.pages = f.pages_for(*unit.config, l.in_kv + 1);
    rank.pages_used += l.pages;
    ++rank.transferring;
    f.push(f.now + unit.config->memory.kv_pages.bytes_gpu(l.in_kv) / f.c.swap_Bps, EventKind::kSwapInEnd, id);
  }
  while (rank.swapped.empty() && !rank.incoming.empty() && room(rank.incoming.front())) {
    const int id = rank.incoming.front();
    rank.incoming.pop_front();
    RequestState& l = f.state(id);
    l.pages = f.pages_for(*unit.config, l.in_kv + 1);
    rank.incoming_pages -= l.pages;
    rank.pages_used += l.pages;
    ++rank.transferring;
    l.phase = RequestPhase::kTransferring;
    f.push(transfer_end_s(f, l, &rank), EventKind::kTransferEnd, id);
  }
}

void join_batch(Floor& f, int u, Rank& rank, int id, const RequestState& l) {
  DecodeSeq s;
  s.id = id;
  s.in_kv = l.in_kv;
  s.generated = l.generated;
  s.output = f.record(id).output_tokens;
  s.room = f.room_for(l.in_kv + 1);
  Unit& unit = f.unit(u);
  PageBoundary b = rank.decoding.join(s, f.decode_steps.draw(s.output - s.generated, f.random));
  b.rank = unit.index_of(rank);
  b.pages = static_cast<int>(l.pages);
  unit.boundaries.schedule(b, rank.decoding.next_step(), unit.steps);
}

void join_decode(Floor& f, int id) {
  RequestState& l = f.state(id);
  Rank& rank = f.rank_of(l.unit, l.rank);
  --rank.transferring;
  rank.unheard = true;  // heard at its unit's next step, as the router hears of every rank
  l.phase = RequestPhase::kDecoding;
  if (rank.running() < f.unit(l.unit).config->max_running)
    join_batch(f, l.unit, rank, id, l);
  else
    rank.received.push_back(id);
  start_step(f, l.unit);
}

void grow_pages(Floor& f, int u, Rank& rank, std::vector<PageBoundary>& due, int tokens_per_step) {
  Unit& unit = f.unit(u);
  PageCalendar& calendar = unit.boundaries;
  const UnitConfig& config = *unit.config;
  const int r = unit.index_of(rank);
  const long long step = rank.decoding.next_step();
  // Pages for those whose context and this step's tokens pass their room. (Where the rank has
  // not stepped at every step of its unit since a boundary was placed, it comes later.)
  std::erase_if(due, [&](const PageBoundary& b) {
    if (b.step > step) calendar.place(b, unit.steps + (b.step - step));
    return b.step > step;
  });
  long long extra = 0;
  for (;;) {
    extra = 0;
    for (const PageBoundary& b : due)
      if (b.id >= 0) extra += renewal(f, config, calendar, b, step, tokens_per_step).pages - b.pages;
    if (rank.pages_used + extra <= rank.pages_total || rank.running() <= 1) break;
    const int left = preempt(f, u, rank);
    if (left < 0) continue;
    const auto was_due = std::find_if(due.begin(), due.end(), [&](const PageBoundary& b) { return b.id == left; });
    if (was_due != due.end())
      was_due->id = -1;  // (gone)
    else
      calendar.cancel(r, left);
  }
  for (PageBoundary& b : due) {
    if (b.id < 0) continue;
    const auto n = renewal(f, config, calendar, b, step, tokens_per_step);
    b.room = n.room;
    b.pages = n.pages;
    calendar.schedule(b, step, unit.steps);
  }
  rank.pages_used += extra;
}

}  // namespace serving
