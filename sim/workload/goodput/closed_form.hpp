#pragma once
// The goodput of a run to first order in its failure rates: each failure costs its expected
// detection, recovery, lost work and wait for a spare, as if failures never overlapped, and a
// cycle of interval + stall takes, on average, cycle (1 + sum of rate x cost). Right while the
// rates times (interval + recovery) stay small; the Monte-Carlo (monte_carlo.hpp) holds beyond.
#include "workload/goodput/goodput_run.hpp"

namespace workload {

GoodputEstimate goodput_closed_form(const RunReliability& r);
// The closed form's best checkpoint interval: the one that maximises its ETTR (near Young's
// sqrt(2 stall / rate) where the rollback dominates).
double best_checkpoint_interval_s(const RunReliability& r);
// The interval a run uses: an asynchronous snapshot waits for the previous write to end.
double usable_checkpoint_interval_s(const RunReliability& r, double interval_s);
// Node failures a second that draw on the spare pool: swaps, and fail-slow exclusions.
double spare_draw_rate_per_s(const RunReliability& r);
// Path time of a recovery: relaunch in place, swap, or re-queue.
double path_s(const Recovery& recovery, RecoveryPath path);
// Restart time of a recovery from `p`, beyond its path: restart_s and the checkpoint's read.
double restart_s_of(const RunReliability& r, const FailureProcess& p);
// Whether a failure of `p` is contained to its replica.
bool contained_to_replica(const Recovery& recovery, const FailureProcess& p);

}  // namespace workload
