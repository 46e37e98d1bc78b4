#include "workload/goodput/closed_form.hpp"

#include <algorithm>
#include <cmath>

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
  const double spare_wait = p.path != RecoveryPath::kSwap ? 0.0
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
  const double since_checkpoint = from_memory ? cycle / 2 : r.checkpoint.snapshots_per_write() * cycle / 2 + r.checkpoint.durable_lag_s();
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

// Seconds of each cause a second of run costs, beyond the checkpoint stalls: X = sum rate x cost.
LossByCause losses_per_s(const RunReliability& r, double interval_s, double no_spare) {
  LossByCause x;
  for (const FailureProcess& p : r.failures) add(x, cost_of(r, p, interval_s, no_spare), p.rate_per_s);
  const FailSlow& f = r.fail_slow;
  if (f.rate_per_s > 0) {
    x.fail_slow += f.rate_per_s * fail_slow_mean_slowed_s(f) * fail_slow_mean_loss_share(f);
    // An exclusion is a planned swap: a checkpoint first, no work lost.
    FailureProcess exclusion{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true};
    add(x, cost_of(r, exclusion, interval_s, no_spare), f.rate_per_s * fail_slow_excluded_share(f));
  }
  return x;
}

double ettr_of(const RunReliability& r, double interval_s, double no_spare) {
  const double cycle = interval_s + r.checkpoint.stall();
  return interval_s / cycle / (1 + losses_per_s(r, interval_s, no_spare).total());
}

}  // namespace

double path_s(const Recovery& recovery, RecoveryPath path) {
  switch (path) {
    case RecoveryPath::kInPlace: return recovery.in_place_s;
    case RecoveryPath::kSwap: return recovery.swap_s;
    case RecoveryPath::kRequeue: return recovery.requeue_s;
  }
  return 0;
}

double restart_s_of(const RunReliability& r, const FailureProcess& p) {
  const bool from_memory = contained_to_replica(r.recovery, p) || (p.rollback != Rollback::kBeforeCorruption && r.checkpoint.memory_survives(p.path));
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
  return r.checkpoint.async ? std::max(interval_s, r.checkpoint.write_s / r.checkpoint.snapshots_per_write()) : interval_s;
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
  auto ettr = [&](double log_interval) { return ettr_of(r, usable_checkpoint_interval_s(r, std::exp(log_interval)), no_spare); };
  for (int i = 0; i < 200; ++i) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (ettr(a) < ettr(b)) lo = a;
    else hi = b;
  }
  // Past the run's end a checkpoint is never written.
  return std::min(usable_checkpoint_interval_s(r, std::exp((lo + hi) / 2)), r.run_s);
}

GoodputEstimate goodput_closed_form(const RunReliability& r) {
  GoodputEstimate g;
  g.spare_empty_probability = no_spare_probability(spare_draw_rate_per_s(r), r.recovery.repair_s, r.recovery.spare_nodes);
  g.checkpoint_interval_s =
      r.checkpoint.interval_s > 0 ? usable_checkpoint_interval_s(r, r.checkpoint.interval_s) : best_checkpoint_interval_s(r);
  const double cycle = g.checkpoint_interval_s + r.checkpoint.stall();
  const LossByCause x = losses_per_s(r, g.checkpoint_interval_s, g.spare_empty_probability);
  const double scale = 86400 / (1 + x.total());  // each cause's share of wall time, a day of it
  g.ettr = g.checkpoint_interval_s / cycle / (1 + x.total());
  add(g.loss_s_per_day, x, scale);
  g.loss_s_per_day.checkpoint += scale * r.checkpoint.stall() / cycle;
  for (const FailureProcess& p : r.failures) {
    g.interruptions_per_day_by_process.push_back(p.rate_per_s * 86400);
    g.interruptions_per_day += p.rate_per_s * 86400;
    if (!contained_to_replica(r.recovery, p)) g.job_stops_per_day += p.rate_per_s * 86400;
  }
  const double exclusions_per_day = r.fail_slow.rate_per_s * fail_slow_excluded_share(r.fail_slow) * 86400;
  g.interruptions_per_day += exclusions_per_day;
  g.exclusions_per_day = exclusions_per_day;
  g.fail_slow_episodes_per_day = r.fail_slow.rate_per_s * 86400 - exclusions_per_day;
  if (!contained_to_replica(r.recovery, FailureProcess{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true}))
    g.job_stops_per_day += exclusions_per_day;
  return g;
}

}  // namespace workload
