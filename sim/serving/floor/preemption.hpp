#pragma once
// Preemption: where a rank's pages run out, its latest admitted request goes (a prompt being
// prefilled, else the latest to join decoding): recomputed from its prompt and what it has
// generated (back through the prefill router, or first in its colocated rank's queue), or its KV
// swapped out to host memory, to come back when the rank has pages (`Preemption` in the config).
#include "serving/floor/floor.hpp"

namespace serving {

// Frees the latest admitted request of `rank` of unit `u`. Returns the request where it was
// decoding, else -1.
int preempt(Floor& f, int u, Rank& rank);

}  // namespace serving
