#pragma once
// The goodput of a long training run under failures: interruptions stop the job, which restarts
// from its last checkpoint after a restart (and, with no spare node to swap in, a re-queue). A
// closed form to first order in the failure rate (Young's checkpoint interval), and a seeded
// Monte-Carlo of the same run that also tracks a spare-node pool whose nodes come back after
// their repair.
#include <cstdint>

namespace workload {

struct RunReliability {
  double stop_rate_per_s = 0;       // interruptions of the job, all components together
  double node_stop_rate_per_s = 0;  // those that take a node out (it is swapped for a spare)
  double checkpoint_interval_s = 0; // of work between checkpoints; 0: the best one
  double checkpoint_write_s = 0;    // the job stops while it writes
  double restart_s = 0;             // reload and warm-up after an interruption
  double requeue_s = 0;             // waiting for a replacement node when no spare is ready
  int spare_nodes = 0;
  double repair_s = 0;              // a failed node's way back into the spare pool
  double run_s = 0;                 // wall-clock length of the run
};

struct Goodput {
  double checkpoint_interval_s = 0;  // the one used (the best, when asked for)
  double interruptions_per_day = 0;
  double effective_fraction = 0;     // work done over wall time
  double lost_s_per_day = 0;         // wall time not spent on work that is kept
  double spare_empty_probability = 0;  // that a node failure finds no spare (Erlang B)
};

// First order in the interruption rate: a segment of interval + write takes, on average,
// (interval + write) (1 + rate ((interval + write) / 2 + restart + P(no spare) requeue)).
Goodput goodput_closed_form(const RunReliability& r);
// The closed form's best interval: the one that maximises its effective fraction.
double best_checkpoint_interval_s(const RunReliability& r);

struct MonteCarloGoodput {
  double effective_fraction = 0;  // mean over runs
  double effective_fraction_sd = 0;
  double interruptions_per_day = 0;
  double requeues_per_day = 0;
  int runs = 0;
};

// The Monte-Carlo's work is one step per interruption: its callers refuse more than this over
// all runs of one cluster (about two seconds).
inline constexpr double kMaxMonteCarloInterruptions = 1e7;

MonteCarloGoodput goodput_monte_carlo(const RunReliability& r, int runs, std::uint64_t seed);

}  // namespace workload
