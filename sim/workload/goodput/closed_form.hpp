#pragma once
// The goodput of a run in closed form: the run as a renewal of up-times between job stops and
// the recoveries after them. What an up-time keeps, and what a stop rolls back, follow exactly
// from the stops' Poisson arrivals and the checkpoint cadence; a recovery is prolonged by the
// failures that strike while the job is down; failures contained to a replica and fail-slow
// episodes take their share of the up-time (first order). So it holds at high interruption rates (a
// 100K-GPU job, many stops an hour), where a first-order form (each failure's expected cost, as
// if they never overlapped) overstates the ETTR several times; the Monte-Carlo (monte_carlo.hpp)
// is its check, the property test holding them together from 1K to 128K GPUs.
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
