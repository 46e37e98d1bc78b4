#pragma once
// Arrivals: a request's way onto the floor. The source's next request is pulled into the table of
// requests in flight as the run reaches it (each arrival pulls the next, so the events hold what
// is in flight); at its arrival its prefix is looked up in the prefix cache; once its prompt is
// ready (a hit held outside HBM read in) the prefill router places it on a rank's queue.
#include "serving/floor/floor.hpp"

namespace serving {

// The source's next request, if it has one now: its arrival is scheduled.
void pull_next(Floor& f);
void arrive(Floor& f, int id);
// Its prompt to a prefill rank (colocated: any unit's rank), or computed at once where prefill
// is unbounded.
void prompt_ready(Floor& f, int id);
// A request put on the rank `side`'s router chooses, in `phase`: that rank's unit, and the rank.
std::pair<int, Rank&> place(Floor& f, RequestState& l, Side side, RequestPhase phase);

}  // namespace serving
