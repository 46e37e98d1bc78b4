#include "workload/goodput/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <random>
#include <vector>

namespace workload {

namespace {

// The chance that a node failure finds no spare: the spares in repair are an Erlang loss system
// (failures arrive at `rate`, each takes a spare for `repair_s`, a failure finding none is
// re-queued and its node goes back to the cluster), whose blocking is Erlang's B formula,
// whatever the repair time's distribution.
double no_spare_probability(double rate_per_s, double repair_s, int spares) {
  const double load = rate_per_s * repair_s;
  double blocking = 1;  // B(0) = 1; B(k) = load B(k-1) / (k + load B(k-1))
  for (int k = 1; k <= spares; ++k) blocking = load * blocking / (k + load * blocking);
  return blocking;
}

double effective_fraction(const RunReliability& r, double interval_s, double no_spare) {
  const double segment = interval_s + r.checkpoint_write_s;
  const double wall = segment * (1 + r.stop_rate_per_s * (segment / 2 + r.restart_s + no_spare * r.requeue_s));
  return interval_s / wall;
}

}  // namespace

double best_checkpoint_interval_s(const RunReliability& r) {
  const double no_spare = no_spare_probability(r.node_stop_rate_per_s, r.repair_s, r.spare_nodes);
  if (r.stop_rate_per_s <= 0) return r.run_s;  // never interrupted: one checkpoint at the end
  // The fraction is unimodal in the interval: golden-section search on a log scale around Young's.
  const double young = std::sqrt(2 * std::max(r.checkpoint_write_s, 1e-3) / r.stop_rate_per_s);
  double lo = std::log(young / 100), hi = std::log(young * 100);
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 200; ++i) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (effective_fraction(r, std::exp(a), no_spare) < effective_fraction(r, std::exp(b), no_spare)) lo = a;
    else hi = b;
  }
  return std::min(std::exp((lo + hi) / 2), r.run_s);  // past the run's end, a checkpoint is never written
}

Goodput goodput_closed_form(const RunReliability& r) {
  Goodput g;
  g.spare_empty_probability = no_spare_probability(r.node_stop_rate_per_s, r.repair_s, r.spare_nodes);
  g.checkpoint_interval_s = r.checkpoint_interval_s > 0 ? r.checkpoint_interval_s : best_checkpoint_interval_s(r);
  g.interruptions_per_day = r.stop_rate_per_s * 86400;
  g.effective_fraction = effective_fraction(r, g.checkpoint_interval_s, g.spare_empty_probability);
  g.lost_s_per_day = 86400 * (1 - g.effective_fraction);
  return g;
}

MonteCarloGoodput goodput_monte_carlo(const RunReliability& r, int runs, std::uint64_t seed) {
  const double interval = r.checkpoint_interval_s > 0 ? r.checkpoint_interval_s : best_checkpoint_interval_s(r);
  const double segment = interval + r.checkpoint_write_s;
  const double node_share = r.stop_rate_per_s > 0 ? r.node_stop_rate_per_s / r.stop_rate_per_s : 0;
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> next_failure(std::max(r.stop_rate_per_s, 1e-300));
  std::uniform_real_distribution<double> uniform(0, 1);
  MonteCarloGoodput out;
  out.runs = runs;
  double sum = 0, sum2 = 0, interruptions = 0, requeues = 0;
  for (int run = 0; run < runs; ++run) {
    double t = 0, kept = 0;
    std::priority_queue<double, std::vector<double>, std::greater<>> back;  // when nodes in repair return
    int pool = r.spare_nodes;
    // Components fail whether the job runs or not: a failure while it recovers starts the
    // recovery again.
    double failure = 0;
    while (true) {
      failure = r.stop_rate_per_s > 0 ? failure + next_failure(rng) : r.run_s;
      const double until = std::min(failure, r.run_s);
      if (until > t) {
        const double segments = (until - t) / segment;
        kept += std::floor(segments) * interval;  // checkpointed segments before it
        // The run's end keeps the work after its last checkpoint: the part segment at work's
        // share of a segment, as the closed form counts every segment.
        if (failure >= r.run_s) kept += (segments - std::floor(segments)) * interval;
      }
      if (failure >= r.run_s) break;
      interruptions += 1;
      double down = r.restart_s;
      if (uniform(rng) < node_share) {  // a node out: a spare if one is back, else a re-queue
        while (!back.empty() && back.top() <= failure) {  // repaired nodes refill the pool, up to its size
          back.pop();
          pool = std::min(pool + 1, r.spare_nodes);
        }
        if (pool > 0) {
          --pool;
        } else {
          down += r.requeue_s;
          requeues += 1;
        }
          back.push(failure + r.repair_s);
      }
      t = failure + down;
    }
    const double fraction = kept / r.run_s;
    sum += fraction;
    sum2 += fraction * fraction;
  }
  out.effective_fraction = sum / runs;
  out.effective_fraction_sd = std::sqrt(std::max(0.0, sum2 / runs - out.effective_fraction * out.effective_fraction));
  out.interruptions_per_day = interruptions / runs / (r.run_s / 86400);
  out.requeues_per_day = requeues / runs / (r.run_s / 86400);
  return out;
}

}  // namespace workload
