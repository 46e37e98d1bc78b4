#pragma once
// A decode rank: what it admits (swapped-out requests first, then prefilled ones whose KV then
// moves, as far as its pages and twice its batch cap allow), a request joining its batch (its
// number of steps drawn, its first page boundary placed), and its sequences' pages growing at a
// step's page boundaries, the latest admitted preempted where they run out.
#include <vector>

#include "serving/floor/floor.hpp"

namespace serving {

// A decoding rank takes in what it has pages for. Transfers run ahead of the batch, as engines
// pre-allocate a decode request's pages: up to a batch's worth beyond the running ones, so a place
// freed in the batch is taken by a cache already received, the next step. (Its router hears of
// it with the rest of the rank's step.)
void admit_incoming(Floor& f, int u, Rank& rank);
// A request joins its rank's decoding batch. Its pages were taken for its KV and the token it
// decodes next; how many steps it takes is drawn now, and its first page boundary placed.
void join_batch(Floor& f, int u, Rank& rank, int id, const RequestState& l);
// Its KV cache in place (moved, or swapped in): into the batch, or received to wait for a place.
void join_decode(Floor& f, int id);

// A boundary's room and pages once its rank's `step` has computed its tokens (`tokens_per_step`:
// one, and MTP's drafts).
inline PageBoundaryScratch::Renewed renewal(const Floor& f, const UnitConfig& config, const PageCalendar& calendar,
                                            const PageBoundary& b, long long step, int tokens_per_step) {
  const long long tokens = calendar.tokens(b, step) + tokens_per_step;
  return {f.room_for(tokens), static_cast<int>(f.pages_for(config, tokens))};
}
// The rank's sequences due at this step (`due`) take their pages; where pages run
// out, the latest admitted go (preemption.hpp) until the rest fit or one is left.
void grow_pages(Floor& f, int u, Rank& rank, std::vector<PageBoundary>& due, int tokens_per_step);

}  // namespace serving
