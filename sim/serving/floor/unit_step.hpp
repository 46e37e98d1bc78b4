#pragma once
// A unit's step: put together from each of its ranks (admission, page boundaries, the decoding
// batch, prompt chunks), timed by its busiest rank (the step's cost and the engine's CPU work),
// and at its end each rank's first tokens, finishes and finished chunks taken in order.
#include "serving/floor/floor.hpp"

namespace serving {

// Starts the unit's next step where it is idle and has anything to step.
void start_step(Floor& f, int u);
void end_step(Floor& f, int u);

}  // namespace serving
