#pragma once
// A seeded Monte-Carlo of a run under failures, event by event: every failure process, the
// checkpoints as they are taken (a stall, then, asynchronous, the write under training), the
// spare pool with its repairs, replicas out while the others train, fail-slow episodes that come
// and go, and silent corruptions found late. A failure during a recovery holds the job until both
// are done. The closed form is its check.
#include <cstdint>

#include "workload/goodput/goodput_run.hpp"

namespace workload {

// The Monte-Carlo's work is one step per event (a failure, a fail-slow episode's start and end,
// a replica's return): its callers refuse more than this over all runs of one cluster.
inline constexpr double kMaxMonteCarloEvents = 1e8;

// The events one run of `r` takes on average, for the refusal above.
double monte_carlo_events_per_run(const RunReliability& r);

// Runs split over `threads`; the same seed gives the same figures whatever their number.
GoodputEstimate goodput_monte_carlo(const RunReliability& r, int runs, std::uint64_t seed, int threads = 1);

}  // namespace workload
