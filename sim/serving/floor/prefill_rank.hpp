#pragma once
// A rank that computes prompts (a prefill rank, or any rank of a colocated unit): at its unit's
// step it takes chunks of the prompts it has admitted, then admits new ones first come first
// served while its pages, its batch cap and the step's token budget allow (its scheduler says
// whole or chunked, and when it admits); at the step's end each chunk is computed, and a finished
// prompt goes to decode (disaggregated), or gives its first token and joins its rank's batch.
#include "serving/floor/floor.hpp"

namespace serving {

// What a rank puts in its unit's step: its token budget left, the load it adds (workload's
// terms, its prompts' summed until the rank is done), its new tokens and its prompts' query-key
// pairs.
struct RankStepLoad {
  int budget = 0;
  workload::GroupLoad group;
  long long tokens = 0;
  double pairs = 0;
};

void take_prompt_chunks(Floor& f, int u, Rank& rank, RankStepLoad& load);

// The chunks of `rank` (of unit `u`) computed: `share` of the step in the measured window
// (`count`: any), `here` the interval it ends in (none where the run keeps none).
void end_prompt_chunks(Floor& f, int u, Rank& rank, double share, bool count, FleetInterval* here);

}  // namespace serving
