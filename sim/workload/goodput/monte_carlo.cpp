#include "workload/goodput/monte_carlo.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "core/fast_random.hpp"
#include "core/progress_bar.hpp"
#include "workload/goodput/closed_form.hpp"
#include "workload/goodput/fail_slow.hpp"
#include "workload/goodput/spare_pool.hpp"

namespace workload {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Tally {
  double kept_s = 0;
  LossByCause loss_s;
  double interruptions = 0;
  double job_stops = 0;
  double requeues = 0;
  std::vector<double> by_process;  // interruptions, as RunReliability::failures
  double exclusions = 0;
  double episodes = 0;  // fail-slow episodes that end without an exclusion
};

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

// The checkpoints of an up-time since a restart: after each `interval` of training a stall,
// where a snapshot is taken.
struct Cadence {
  double interval, cycle;
  double training_by(double up_s) const {
    const double n = std::floor(up_s / cycle);
    return n * interval + std::min(up_s - n * cycle, interval);
  }
  double snapshot(double k) const { return k * cycle + interval; }
};

// Where a run keeps its checkpoints: on storage, and (in memory) in host memory. Each tier holds
// every `every`-th snapshot, usable `lag` after it is taken (its stall, and a write to storage),
// and knows what the last usable one holds.
struct Tier {
  int every = 1;
  double lag = 0;
  double kept = 0;
  bool pending = false;  // one not yet usable: what it holds and when
  double pending_done = 0, pending_at = 0;
};

// One run, event by event: the next failure, fail-slow start or end, replica return, corruption
// found, end of a recovery, or the run's end, whichever comes first. Between events the job is
// either down (its recovery's parts are charged in order) or training at a constant pace.
class Run {
 public:
  Run(const RunReliability& r, const Cadence& cadence, const std::vector<double>& cumulative_rate, std::uint64_t seed)
      : r_(r),
        c_(cadence),
        cumulative_(cumulative_rate),
        rng_(seed),
        pool_(r.recovery.spare_nodes, r.recovery.repair_s) {
    const Checkpointing& k = r.checkpoint;
    tally_.by_process.assign(r.failures.size(), 0.0);
    storage_.every = k.snapshots_per_write();
    storage_.lag = k.stall() + k.durable_lag_s();
    memory_.lag = k.stall();
  }

  Tally go() {
    const double total_rate = cumulative_.empty() ? 0.0 : cumulative_.back();
    next_failure_ = draw_after(total_rate);
    next_onset_ = draw_after(r_.fail_slow.rate_per_s);
    while (true) {
      const double failure = next_failure_, onset = next_onset_, slow_end = first_slow_end(), back = first_back(),
                   found = first_found(), up = down_ ? down_end_ : kNever;
      const double next = std::min({failure, onset, slow_end, back, found, up, r_.run_s});
      advance(next);
      if (next >= r_.run_s) break;
      if (next == up) {
        end_down();
      } else if (next == found) {
        find_corruption();
      } else if (next == back) {
        out_.erase(out_.begin() + index_of_first_back());
      } else if (next == slow_end) {
        end_slow();
      } else if (next == onset) {
        start_slow();
        next_onset_ = t_ + draw_after(r_.fail_slow.rate_per_s);
      } else {
        const double pick = rng_.uniform() * total_rate;
        const auto k = std::upper_bound(cumulative_.begin(), cumulative_.end(), pick) - cumulative_.begin();
        const std::size_t index = std::min<std::size_t>(std::size_t(k), r_.failures.size() - 1);
        fail(r_.failures[index], int(index));
        next_failure_ = t_ + draw_after(total_rate);
      }
    }
    tally_.kept_s = done_;
    return tally_;
  }

 private:
  struct Out {  // a replica out of training
    double from, spares_from, spares_to, back;
  };
  struct Episode {  // a slow node
    double end, slowdown;
    bool excluded;
  };
  struct Corruption {
    double found, clean;  // when it is found, and the training its last clean checkpoint holds
    int process;
  };

  double draw_after(double rate) { return rate > 0 ? -std::log(rng_.uniform()) / rate : kNever; }
  double manual_s() {
    const Recovery& rec = r_.recovery;
    return rec.manual_fraction > 0 && rng_.uniform() < rec.manual_fraction ? -std::log(rng_.uniform()) * rec.manual_s
                                                                           : 0.0;
  }

  double first_slow_end() const {
    double m = kNever;
    for (const Episode& e : slow_) m = std::min(m, e.end);
    return m;
  }
  std::size_t index_of_first_back() const {
    return std::size_t(
        std::min_element(out_.begin(), out_.end(), [](const Out& a, const Out& b) { return a.back < b.back; }) -
        out_.begin());
  }
  double first_back() const { return out_.empty() ? kNever : out_[index_of_first_back()].back; }
  double first_found() const {
    double m = kNever;
    for (const Corruption& c : corrupt_) m = std::min(m, c.found);
    return m;
  }

  void advance(double to) {
    const double dt = to - t_;
    if (dt > 0) {
      if (down_)
        charge_down(t_ - down_start_, to - down_start_);
      else
        train(dt);
    }
    t_ = to;
  }

  // Down: the recovery's parts in order, each charged to its cause.
  void charge_down(double from_s, double to_s) {
    double* causes[4] = {&tally_.loss_s.checkpoint, &tally_.loss_s.detection, &tally_.loss_s.spares,
                         &tally_.loss_s.restart};
    double start = 0;
    for (int i = 0; i < 4; ++i) {
      *causes[i] += overlap(from_s, to_s, start, start + parts_[i]);
      start += parts_[i];
    }
  }

  // Up for dt: training at the pace of the replicas in and the slowest node, less the stalls.
  void train(double dt) {
    const int replicas = r_.recovery.replicas;
    const double in = double(replicas - std::min<int>(int(out_.size()), replicas)) / replicas;
    const double x1 = x_ + dt;
    const double w0 = c_.training_by(x_), training = c_.training_by(x1) - w0;
    const double pace = in / slowdown_;
    keep(storage_, x1, w0, pace);
    if (r_.checkpoint.in_memory) keep(memory_, x1, w0, pace);
    done_ += pace * training;
    tally_.loss_s.checkpoint += (dt - training) * in;
    tally_.loss_s.fail_slow += training * in * (1 - 1 / slowdown_);
    if (!out_.empty()) {  // the replicas out share 1 - in
      const double share = (1 - in) / double(out_.size());
      for (const Out& o : out_) {
        const double waiting = overlap(t_, t_ + dt, o.spares_from, o.spares_to);
        tally_.loss_s.spares += share * waiting;
        tally_.loss_s.restart += share * (dt - waiting);
      }
    }
    x_ = x1;
  }

  // The tier's snapshots taken from x_ to x1 at `pace`: the last two (a write ends before the
  // tier's next snapshot, so the one before the last is usable by then).
  void keep(Tier& tier, double x1, double w0, double pace) {
    if (tier.pending && tier.pending_at <= x1) {
      tier.kept = tier.pending_done;
      tier.pending = false;
    }
    const double k = std::floor((x1 - c_.interval) / c_.cycle);  // the last snapshot by x1
    if (k < 0) return;
    const double last = std::floor((k + 1) / tier.every) * tier.every - 1;  // the tier's
    for (const double j : {last - tier.every, last}) {
      const double s = c_.snapshot(j);
      if (j < 0 || s <= x_) continue;
      const double held = done_ + pace * (c_.training_by(s) - w0);
      if (j < last || s + tier.lag <= x1) {
        tier.kept = held;
        tier.pending = false;
      } else {
        tier.pending = true;
        tier.pending_done = held;
        tier.pending_at = s + tier.lag;
      }
    }
  }
  // A stop for `p` rolls back to the last snapshot it left readable.
  double kept_for(const FailureProcess& p) const {
    return r_.checkpoint.memory_survives(p.path) ? memory_.kept : storage_.kept;
  }

  void roll_back(double to) {
    tally_.loss_s.lost_work += done_ - to;
    done_ = to;
    for (Tier* tier : {&storage_, &memory_}) {
      tier->kept = to;
      tier->pending = false;
    }
  }

  // A failure while the job recovers from another does not cut that recovery short: the job
  // restarts once both are done, so the longer of the two holds it.
  void start_down(double checkpoint_s, double detection_s, double spares_s, double restart_s, bool restarts) {
    const double end = t_ + checkpoint_s + detection_s + spares_s + restart_s;
    if (down_ && restarts_ && down_end_ >= end) return;
    parts_ = {checkpoint_s, detection_s, spares_s, restart_s};
    down_ = true;
    restarts_ = restarts;
    down_start_ = t_;
    down_end_ = end;
  }
  void end_down() {
    down_ = false;
    if (restarts_) {  // from a checkpoint: the cadence starts again
      x_ = 0;
      storage_.pending = memory_.pending = false;
    }
  }

  // A node swap: a spare, else the wait for one (or, elastic, the job shrinks until the node's
  // repair). Returns the wait.
  double swap_wait(bool whole_job) {
    if (pool_.take(t_)) return 0;
    tally_.requeues += 1;
    const Recovery& rec = r_.recovery;
    if (whole_job && rec.strategy == RecoveryStrategy::kElastic && rec.replicas > 1) {
      out_.push_back({t_, t_, t_ + rec.repair_s, t_ + rec.repair_s});
      return 0;
    }
    return rec.requeue_s;
  }

  // `index`: the process's in RunReliability::failures; kExclusion for a fail-slow exclusion.
  static constexpr int kExclusion = -1;
  void count(int index) {
    tally_.interruptions += 1;
    if (index == kExclusion)
      tally_.exclusions += 1;
    else
      tally_.by_process[std::size_t(index)] += 1;
  }

  void fail(const FailureProcess& p, int index) {
    const Recovery& rec = r_.recovery;
    if (p.while_running && down_) return;                              // no process to fail
    if (p.rollback == Rollback::kBeforeCorruption) {                   // counted when found
      corrupt_.push_back({t_ + p.detection_s, storage_.kept, index});  // memory holds only the latest
      return;
    }
    const bool planned = p.rollback == Rollback::kNone;
    if (planned && down_) return;  // done within the recovery under way
    count(index);
    const double manual = planned ? 0.0 : manual_s();
    const double detection = planned ? 0.0 : p.detection_s;
    if (contained_to_replica(rec, p)) {  // the job waits for the detection; the replica recovers from its peers
      const double wait = p.path == RecoveryPath::kSwap ? swap_wait(false) : 0.0;
      const double from = t_ + detection;
      out_.push_back({t_, from, from + wait, from + wait + path_s(rec, p.path) + restart_s_of(r_, p) + manual});
      if (!down_ && detection > 0) start_down(0, detection, 0, 0, false);
      return;
    }
    tally_.job_stops += 1;
    if (planned) {  // a checkpoint first
      roll_back(done_);
    } else {
      roll_back(kept_for(p));
    }
    const double wait = p.path == RecoveryPath::kSwap ? swap_wait(true) : 0.0;
    start_down(planned ? r_.checkpoint.write_s : 0.0, detection, wait,
               path_s(rec, p.path) + restart_s_of(r_, p) + manual, true);
  }

  void find_corruption() {
    const auto it = std::min_element(corrupt_.begin(), corrupt_.end(),
                                     [](const Corruption& a, const Corruption& b) { return a.found < b.found; });
    const double clean = it->clean;
    const int index = it->process;
    corrupt_.erase(it);
    count(index);
    tally_.job_stops += 1;
    roll_back(std::min(storage_.kept, clean));
    start_down(0, 0, 0, r_.recovery.in_place_s + restart_s_of(r_, r_.failures[std::size_t(index)]) + manual_s(), true);
  }

  void start_slow() {
    const FailSlow& f = r_.fail_slow;
    const double duration = fail_slow_duration_s(f, rng_.uniform());
    const double slowdown = fail_slow_slowdown(f, rng_.uniform());
    const bool excluded = f.exclude_after_s > 0 && duration > f.exclude_after_s;
    slow_.push_back({t_ + (excluded ? f.exclude_after_s : duration), slowdown, excluded});
    if (!excluded) tally_.episodes += 1;
    slowdown_ = std::max(slowdown_, slowdown);
  }
  void end_slow() {
    const auto it =
        std::min_element(slow_.begin(), slow_.end(), [](const Episode& a, const Episode& b) { return a.end < b.end; });
    const bool excluded = it->excluded;
    slow_.erase(it);
    slowdown_ = 1;
    for (const Episode& e : slow_) slowdown_ = std::max(slowdown_, e.slowdown);
    // An exclusion: the slow node swapped out as a planned stop.
    if (excluded)
      fail(FailureProcess{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true}, kExclusion);
  }

  const RunReliability& r_;
  const Cadence& c_;
  const std::vector<double>& cumulative_;
  core::FastNormal rng_;
  SparePool pool_;
  Tally tally_;
  double t_ = 0;
  double next_failure_ = kNever, next_onset_ = kNever;
  // The job: down (recovering, or stalled for a detection) or training.
  bool down_ = false, restarts_ = false;
  double down_start_ = 0, down_end_ = 0;
  std::array<double, 4> parts_{};  // checkpoint written, detection, wait for a spare, restart
  double x_ = 0;                   // up-time since the last restart: the checkpoint cadence's clock
  double done_ = 0;                // training done
  Tier storage_, memory_;          // the checkpoints on storage and (in memory) in host memory
  std::vector<Out> out_;
  std::vector<Episode> slow_;
  double slowdown_ = 1;
  std::vector<Corruption> corrupt_;
};

}  // namespace

double monte_carlo_events_per_run(const RunReliability& r) {
  double rate = 2 * r.fail_slow.rate_per_s;  // starts and ends
  for (const FailureProcess& p : r.failures) rate += (contained_to_replica(r.recovery, p) ? 2 : 1) * p.rate_per_s;
  return rate * r.run_s;
}

GoodputEstimate goodput_monte_carlo(const RunReliability& r, int runs, std::uint64_t seed, int threads) {
  GoodputEstimate out;
  out.runs = runs;
  out.checkpoint_interval_s = r.checkpoint.interval_s > 0 ? usable_checkpoint_interval_s(r, r.checkpoint.interval_s)
                                                          : best_checkpoint_interval_s(r);
  const Cadence cadence{out.checkpoint_interval_s, out.checkpoint_interval_s + r.checkpoint.stall()};
  std::vector<double> cumulative;
  double sum_rate = 0;
  for (const FailureProcess& p : r.failures) cumulative.push_back(sum_rate += p.rate_per_s);

  std::vector<Tally> tallies(static_cast<std::size_t>(runs));
  std::atomic<int> finished{0};
  const int workers = std::max(1, std::min(threads, runs));
  auto work = [&](int first, int last) {
    for (int run = first; run < last; ++run) {
      tallies[std::size_t(run)] =
          Run(r, cadence, cumulative, seed + 0x632BE59BD9B4E019ull * std::uint64_t(run + 1)).go();
      finished.fetch_add(1, std::memory_order_relaxed);
    }
  };
  {
    core::ProgressBar bar("goodput Monte-Carlo", runs);
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) pool.emplace_back(work, runs * w / workers, runs * (w + 1) / workers);
    for (int run = 0; run < runs / workers; ++run) {  // the first share here, reporting for all
      work(run, run + 1);
      bar.update(finished.load(std::memory_order_relaxed));
    }
    for (std::thread& t : pool) t.join();
    bar.update(runs);
  }

  const double days = r.run_s / 86400;
  out.interruptions_per_day_by_process.assign(r.failures.size(), 0.0);
  double sum = 0, sum2 = 0;
  for (const Tally& t : tallies) {  // in run order: the same figures whatever the threads
    const double ettr = t.kept_s / r.run_s;
    sum += ettr;
    sum2 += ettr * ettr;
    out.interruptions_per_day += t.interruptions / days / runs;
    out.job_stops_per_day += t.job_stops / days / runs;
    out.requeues_per_day += t.requeues / days / runs;
    for (std::size_t i = 0; i < t.by_process.size(); ++i)
      out.interruptions_per_day_by_process[i] += t.by_process[i] / days / runs;
    out.exclusions_per_day += t.exclusions / days / runs;
    out.fail_slow_episodes_per_day += t.episodes / days / runs;
    LossByCause& l = out.loss_s_per_day;
    l.detection += t.loss_s.detection / days / runs;
    l.restart += t.loss_s.restart / days / runs;
    l.lost_work += t.loss_s.lost_work / days / runs;
    l.checkpoint += t.loss_s.checkpoint / days / runs;
    l.spares += t.loss_s.spares / days / runs;
    l.fail_slow += t.loss_s.fail_slow / days / runs;
  }
  out.ettr = sum / runs;
  out.ettr_sd = std::sqrt(std::max(0.0, sum2 / runs - out.ettr * out.ettr));
  out.spare_empty_probability =
      no_spare_probability(spare_draw_rate_per_s(r), r.recovery.repair_s, r.recovery.spare_nodes);
  return out;
}

}  // namespace workload
