#include "workload/goodput/closed_form.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "workload/goodput/fail_slow.hpp"
#include "workload/goodput/spare_pool.hpp"

namespace workload {

namespace {

// Seconds of each cause one failure of `p` costs on average.
LossByCause cost_of(const RunReliability& r, const FailureProcess& p, double interval_s, double no_spare) {
  const Recovery& rec = r.recovery;
  const double cycle = interval_s + r.checkpoint.stall();
  const bool planned = p.rollback == Rollback::kNone;
  const double manual = planned ? 0.0 : rec.manual_fraction * rec.manual_s;
  const double spare_wait =
      p.path != RecoveryPath::kSwap
          ? 0.0
          : no_spare * (rec.strategy == RecoveryStrategy::kElastic ? rec.repair_s / rec.replicas : rec.requeue_s);
  LossByCause c;
  if (contained_to_replica(rec, p)) {  // the job waits for the detection; one replica for the rest
    const double share = 1.0 / rec.replicas;
    c.detection = planned ? 0.0 : p.detection_s;
    c.restart = share * (path_s(rec, p.path) + restart_s_of(r, p) + manual);
    c.spares = share * (p.path == RecoveryPath::kSwap ? no_spare * rec.requeue_s : 0.0);
    return c;
  }
  // Back to the last snapshot, in memory; or to the last one on storage, written every
  // storage_every snapshots and usable a write later.
  const bool from_memory = p.rollback == Rollback::kLastCheckpoint && r.checkpoint.memory_survives(p.path);
  const double since_checkpoint =
      from_memory ? cycle / 2 : r.checkpoint.snapshots_per_write() * cycle / 2 + r.checkpoint.durable_lag_s();
  c.detection = p.rollback == Rollback::kBeforeCorruption ? 0.0 : p.detection_s;
  c.lost_work = planned ? 0.0 : since_checkpoint + (p.rollback == Rollback::kBeforeCorruption ? p.detection_s : 0.0);
  c.checkpoint = planned ? r.checkpoint.write_s : 0.0;
  c.restart = path_s(rec, p.path) + restart_s_of(r, p) + manual;
  c.spares = spare_wait;
  return c;
}

void add(LossByCause& to, const LossByCause& c, double weight) {
  to.detection += weight * c.detection;
  to.restart += weight * c.restart;
  to.lost_work += weight * c.lost_work;
  to.checkpoint += weight * c.checkpoint;
  to.spares += weight * c.spares;
  to.fail_slow += weight * c.fail_slow;
}

// The run as a renewal: up-times between job stops, each followed by its recovery.
// An up-time ends at the first stop, at `rate` a second (stops are Poisson), so it lasts 1 / rate
// on average, and the checkpoints it holds are known in closed form: a snapshot of a tier taken
// at s and usable lag later survives when the up-time outlasts s + lag. A stop rolls back to the
// last usable snapshot; a recovery is prolonged by the failures that strike while the job is down
// (each restarts it: the wait for a gap of its length among them). Failures contained to a
// replica (their detection stalls the job, their replica is out a while) and fail-slow episodes
// take their share of the up-time (first order).
// Exact for one kind of stop with fixed costs; first order in the rest.
struct Renewal {
  double ettr = 0;
  LossByCause loss_per_s;  // a second of wall time, lost by cause
  double up_share = 0;     // of wall time the job is up (not down for a stop)
};

// Sum over k >= 0 of exp(-rate (a + k b)).
double tail_sum(double rate, double a, double b) { return std::exp(-rate * a) / -std::expm1(-rate * b); }

// Expected (e^x - 1) / x, the factor a recovery of x = rate x length is prolonged by.
double prolonged(double x) { return x > 1e-12 ? std::expm1(x) / x : 1.0; }

Renewal renewal(const RunReliability& r, double interval_s, double no_spare) {
  const Checkpointing& k = r.checkpoint;
  const double tau = interval_s, stall = k.stall(), cycle = tau + stall;
  struct Stop {
    double rate;
    LossByCause down;  // its recovery: detection, restart, spares, a planned stop's write
    bool rolls_back, from_memory;
    double extra_lost_s;  // a corruption: the training it spoiled before it was found
    bool while_down;      // strikes while the job is down too, prolonging its recovery
  };
  std::vector<Stop> stops;
  // Beside the stops, seconds a second of up-time: the job stalled while a replica's failure is
  // detected (time it would have trained), and what a share of the job out or slow costs.
  LossByCause stalling, sharing;
  auto consider = [&](const FailureProcess& p, double rate) {
    if (rate <= 0) return;
    LossByCause c = cost_of(r, p, interval_s, no_spare);
    if (contained_to_replica(r.recovery, p)) {
      stalling.detection += rate * c.detection;
      c.detection = 0;
      add(sharing, c, rate);
      return;
    }
    c.lost_work = 0;
    if (r.recovery.strategy ==
        RecoveryStrategy::kElastic) {  // a shrunk job trains on, short a replica once it is back up
      sharing.spares += rate * c.spares * std::max(0.0, 1 - (c.total() - c.spares) / r.recovery.repair_s);
      c.spares = 0;
    }
    stops.push_back({rate, c, p.rollback != Rollback::kNone,
                     p.rollback == Rollback::kLastCheckpoint && k.memory_survives(p.path),
                     p.rollback == Rollback::kBeforeCorruption ? p.detection_s : 0.0,
                     !p.while_running && p.rollback != Rollback::kNone});
  };
  for (const FailureProcess& p : r.failures) consider(p, p.rate_per_s);
  const FailSlow& f = r.fail_slow;
  if (f.rate_per_s > 0) {
    sharing.fail_slow += f.rate_per_s * fail_slow_mean_slowed_s(f) * fail_slow_mean_loss_share(f);
    // An exclusion is a planned swap: a checkpoint first, no work lost.
    consider(FailureProcess{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true},
             f.rate_per_s * fail_slow_excluded_share(f));
  }
  double rate = 0, down_rate = 0;
  for (const Stop& s : stops) {
    rate += s.rate;
    if (s.while_down) down_rate += s.rate;
  }
  // An up-time and what it trains, stalls and keeps; with no stop, a second of it.
  double up = 1, stalled = stall / cycle, training = tau / cycle, lost = 0, down = 0;
  LossByCause recovering;  // the recoveries' parts
  if (rate > 0) {
    up = 1 / rate;
    stalled = tail_sum(rate, tau, cycle) * -std::expm1(-rate * stall) / rate;
    training = up - stalled;
    // Training as of the last snapshot usable from storage (every storage_every-th, a write's
    // lag past its stall) and from memory (each, at its stall's end).
    const int every = k.snapshots_per_write();
    const double kept_storage =
        every * tau * tail_sum(rate, (every - 1) * cycle + tau + stall + k.durable_lag_s(), every * cycle);
    const double kept_memory = tau * tail_sum(rate, tau + stall, cycle);
    for (const Stop& s : stops) {
      const double share = s.rate / rate;
      if (s.rolls_back) lost += share * (training - (s.from_memory ? kept_memory : kept_storage) + s.extra_lost_s);
      const double length = s.down.total();
      const double factor = s.while_down ? prolonged(down_rate * length) : 1.0;
      add(recovering, s.down, share * factor);
      down += share * factor * length;
    }
  }
  const double kept = std::max(0.0, training - lost);
  // The up-time's share lost beside: stalled for detections (each pauses the job), then of the
  // rest the share out or slow.
  const double stalled_share = stalling.detection / (1 + stalling.detection);
  const double shared = (1 - stalled_share) * std::min(1.0, sharing.total());
  const double rest = 1 - stalled_share - shared;
  const double wall = up + down;
  Renewal out;
  out.ettr = kept * rest / wall;
  add(out.loss_per_s, recovering, 1 / wall);
  out.loss_per_s.checkpoint += stalled * rest / wall;
  out.loss_per_s.lost_work += (training - kept) * rest / wall;
  out.loss_per_s.detection += up * stalled_share / wall;
  if (shared > 0) add(out.loss_per_s, sharing, up * shared / sharing.total() / wall);
  out.up_share = up / wall;
  return out;
}

double ettr_of(const RunReliability& r, double interval_s, double no_spare) {
  return renewal(r, interval_s, no_spare).ettr;
}

}  // namespace

double path_s(const Recovery& recovery, RecoveryPath path) {
  switch (path) {
    case RecoveryPath::kInPlace:
      return recovery.in_place_s;
    case RecoveryPath::kSwap:
      return recovery.swap_s;
    case RecoveryPath::kRequeue:
      return recovery.requeue_s;
  }
  return 0;
}

double restart_s_of(const RunReliability& r, const FailureProcess& p) {
  const bool from_memory = contained_to_replica(r.recovery, p) ||
                           (p.rollback != Rollback::kBeforeCorruption && r.checkpoint.memory_survives(p.path));
  return r.recovery.restart_s + (from_memory ? r.recovery.memory_read_s : r.recovery.storage_read_s);
}

bool contained_to_replica(const Recovery& recovery, const FailureProcess& p) {
  return recovery.strategy == RecoveryStrategy::kPerReplica && recovery.replicas > 1 && p.per_replica &&
         p.rollback != Rollback::kBeforeCorruption;
}

double spare_draw_rate_per_s(const RunReliability& r) {
  double rate = r.fail_slow.rate_per_s * fail_slow_excluded_share(r.fail_slow);
  for (const FailureProcess& p : r.failures)
    if (p.path == RecoveryPath::kSwap) rate += p.rate_per_s;
  return rate;
}

// An asynchronous write ends before the next one starts.
double usable_checkpoint_interval_s(const RunReliability& r, double interval_s) {
  return r.checkpoint.async ? std::max(interval_s, r.checkpoint.write_s / r.checkpoint.snapshots_per_write())
                            : interval_s;
}

double best_checkpoint_interval_s(const RunReliability& r) {
  const double no_spare = no_spare_probability(spare_draw_rate_per_s(r), r.recovery.repair_s, r.recovery.spare_nodes);
  double rollback_rate = 0;  // failures that roll the job back: the ones an interval trades against
  for (const FailureProcess& p : r.failures)
    if (p.rollback != Rollback::kNone && !contained_to_replica(r.recovery, p)) rollback_rate += p.rate_per_s;
  if (rollback_rate <= 0) return r.run_s;  // nothing rolls back: one checkpoint at the end
  // The ETTR is unimodal in the interval: golden-section search on a log scale around Young's.
  const double young = std::sqrt(2 * std::max(r.checkpoint.stall(), 1e-3) / rollback_rate);
  double lo = std::log(young / 100), hi = std::log(young * 100);
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto ettr = [&](double log_interval) {
    return ettr_of(r, usable_checkpoint_interval_s(r, std::exp(log_interval)), no_spare);
  };
  for (int i = 0; i < 200; ++i) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (ettr(a) < ettr(b))
      lo = a;
    else
      hi = b;
  }
  // Past the run's end a checkpoint is never written.
  return std::min(usable_checkpoint_interval_s(r, std::exp((lo + hi) / 2)), r.run_s);
}

GoodputEstimate goodput_closed_form(const RunReliability& r) {
  GoodputEstimate g;
  g.spare_empty_probability =
      no_spare_probability(spare_draw_rate_per_s(r), r.recovery.repair_s, r.recovery.spare_nodes);
  g.checkpoint_interval_s = r.checkpoint.interval_s > 0 ? usable_checkpoint_interval_s(r, r.checkpoint.interval_s)
                                                        : best_checkpoint_interval_s(r);
  const Renewal run = renewal(r, g.checkpoint_interval_s, g.spare_empty_probability);
  g.ettr = run.ettr;
  add(g.loss_s_per_day, run.loss_per_s, 86400);
  // Hardware strikes whatever the job does; the job's own processes and planned stops only while it runs.
  for (const FailureProcess& p : r.failures) {
    const double per_day =
        p.rate_per_s * 86400 * (p.while_running || p.rollback == Rollback::kNone ? run.up_share : 1.0);
    g.interruptions_per_day_by_process.push_back(per_day);
    g.interruptions_per_day += per_day;
    if (!contained_to_replica(r.recovery, p)) g.job_stops_per_day += per_day;
  }
  const double exclusions_per_day =
      r.fail_slow.rate_per_s * fail_slow_excluded_share(r.fail_slow) * 86400 * run.up_share;
  g.interruptions_per_day += exclusions_per_day;
  g.exclusions_per_day = exclusions_per_day;
  g.fail_slow_episodes_per_day = r.fail_slow.rate_per_s * 86400 * (1 - fail_slow_excluded_share(r.fail_slow));
  if (!contained_to_replica(r.recovery,
                            FailureProcess{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true}))
    g.job_stops_per_day += exclusions_per_day;
  return g;
}

}  // namespace workload
