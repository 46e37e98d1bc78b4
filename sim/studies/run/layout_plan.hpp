#pragma once
// The layouts `codesim plan` tries for a training-step scenario: every tp (dividing the heads,
// inside a node), cp (2 x cp dividing the sequence), pp (at most one stage per layer), dp (the
// rest), micro-batch size (1, 2, 4, 8 dividing a replica's sequences), schedule (1f1b, zb1p,
// interleaved with 2 or 4 virtual stages, dualpipe, dualpipev, where each one's rules allow),
// for MoE models ep and etp folded over a stage's tp x cp x dp GPUs (etp 1 or tp, etp x ep
// dividing them, ep dividing the experts), recomputation and ZeRO stage, each a point of a sweep over the scenario in
// analytical mode. The scenario's own layout fields are replaced; its placement order, model, cluster, batch and
// compute are kept.
#include <string>
#include <vector>

#include "studies/run/sweep.hpp"

namespace studies {

// The scenario with `overrides` applied (as `run --set` applies them); InputError naming the file
// when it is not a training-step scenario.
Sweep plan_sweep(const std::string& scenario_path, const std::vector<std::string>& overrides = {});

}  // namespace studies
