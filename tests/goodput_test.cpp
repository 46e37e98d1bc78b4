#include <catch2/catch.hpp>

#include <cmath>

#include "workload/goodput/closed_form.hpp"
#include "workload/goodput/fail_slow.hpp"
#include "workload/goodput/monte_carlo.hpp"
#include "workload/goodput/restart_parts.hpp"
#include "workload/goodput/spare_pool.hpp"

namespace {

using workload::FailureProcess;
using workload::RecoveryPath;
using workload::Rollback;

// One node-failure process at `rate_per_hour`, as the older model had it: no detection, a swap
// that costs nothing but the restart, a re-queue with no spare.
workload::RunReliability run(double rate_per_hour, int spares) {
  workload::RunReliability r;
  r.failures.push_back({"node", rate_per_hour / 3600, 0, RecoveryPath::kSwap, Rollback::kLastCheckpoint, true});
  r.checkpoint.write_s = 30;
  r.recovery.restart_s = 600;
  r.recovery.requeue_s = 1800;
  r.recovery.repair_s = 86400;
  r.recovery.spare_nodes = spares;
  r.run_s = 54 * 86400;
  return r;
}

double sum_with_kept(const workload::GoodputEstimate& g) { return g.loss_s_per_day.total() + 86400 * g.ettr; }

}  // namespace

TEST_CASE("goodput: the closed form and the Monte-Carlo agree where failures are rare enough", "[goodput]") {
  for (int spares : {0, 8, 32})
    for (double rate : {0.02, 0.1}) {  // first order: rate x (interval + recovery) up to about 0.1
      INFO(rate << " per hour, " << spares << " spares");
      const auto closed = workload::goodput_closed_form(run(rate, spares));
      const auto mc = workload::goodput_monte_carlo(run(rate, spares), 200, 7);
      CHECK(mc.ettr == Approx(closed.ettr).epsilon(0.02));
      CHECK(mc.interruptions_per_day == Approx(closed.interruptions_per_day).epsilon(0.1));
      CHECK(mc.loss_s_per_day.lost_work == Approx(closed.loss_s_per_day.lost_work).epsilon(0.15));
      CHECK(mc.loss_s_per_day.restart == Approx(closed.loss_s_per_day.restart).epsilon(0.1));
    }
}

TEST_CASE("goodput: both methods account for every second, kept or lost by one cause", "[goodput]") {
  auto r = run(0.5, 4);
  r.failures.push_back({"hang", 0.05 / 3600, 600, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true});
  r.failures.push_back({"sdc", 0.01 / 3600, 4 * 3600, RecoveryPath::kInPlace, Rollback::kBeforeCorruption, false});
  r.failures.push_back({"maintenance", 1.0 / 168, 0, RecoveryPath::kInPlace, Rollback::kNone, true});
  r.fail_slow = {0.2 / 3600, 30, 4 * 3600, 1.1, 2.0, 600};
  r.recovery.manual_fraction = 0.05;
  r.recovery.manual_s = 7200;
  for (auto strategy : {workload::RecoveryStrategy::kRestart, workload::RecoveryStrategy::kPerReplica,
                        workload::RecoveryStrategy::kElastic})
    for (int checkpoints : {0, 1, 2, 3}) {  // synchronous, asynchronous, in memory alone, copied to a peer
      r.recovery.strategy = strategy;
      r.recovery.replicas = 8;
      r.checkpoint.async = checkpoints > 0;
      r.checkpoint.stall_s = 3;
      r.checkpoint.in_memory = checkpoints > 1;
      r.checkpoint.storage_every = checkpoints > 1 ? 3 : 1;
      r.checkpoint.memory_peers = checkpoints > 2 ? 1 : 0;
      INFO("strategy " << int(strategy) << ", checkpoints " << checkpoints);
      CHECK(sum_with_kept(workload::goodput_closed_form(r)) == Approx(86400).epsilon(1e-9));
      CHECK(sum_with_kept(workload::goodput_monte_carlo(r, 20, 3)) == Approx(86400).epsilon(1e-9));
    }
}

TEST_CASE("goodput: a failure that finds no spare is blocked as Erlang B has it, in both methods", "[goodput]") {
  // 20 node failures a day, each node 24 h in repair: a load of 20 spares. With a spare or none
  // per failure counted by the Monte-Carlo, its share of re-queues is Erlang B's blocking.
  for (int spares : {8, 20, 32}) {
    const auto r = run(20.0 / 24, spares);
    const double blocking = workload::no_spare_probability(r.failures[0].rate_per_s, r.recovery.repair_s, spares);
    const auto mc = workload::goodput_monte_carlo(r, 400, 11);
    INFO(spares << " spares: Erlang B " << blocking);
    CHECK(mc.requeues_per_day / mc.interruptions_per_day == Approx(blocking).margin(0.01 + 0.05 * blocking));
    CHECK(workload::goodput_closed_form(r).spare_empty_probability == blocking);
  }
}

TEST_CASE("goodput: the best interval is Young's to first order, and beats its neighbours", "[goodput]") {
  auto r = run(0.1, 0);
  const double best = workload::best_checkpoint_interval_s(r);
  CHECK(best == Approx(std::sqrt(2 * 30 / r.failures[0].rate_per_s)).epsilon(0.1));
  const double at_best = workload::goodput_closed_form(r).ettr;
  for (double factor : {0.5, 2.0}) {
    r.checkpoint.interval_s = best * factor;
    CHECK(workload::goodput_closed_form(r).ettr < at_best);
  }
}

TEST_CASE("goodput: spares take the re-queue out, and a seed gives the same run whatever the threads", "[goodput]") {
  const auto none = workload::goodput_monte_carlo(run(0.5, 0), 50, 3);
  const auto many = workload::goodput_monte_carlo(run(0.5, 64), 50, 3);
  CHECK(none.requeues_per_day == Approx(none.interruptions_per_day));
  CHECK(many.requeues_per_day == 0);
  CHECK(many.ettr > none.ettr);
  CHECK(none.loss_s_per_day.spares > 0);
  CHECK(many.loss_s_per_day.spares == 0);
  const auto one = workload::goodput_monte_carlo(run(0.5, 8), 50, 3, 1);
  const auto three = workload::goodput_monte_carlo(run(0.5, 8), 50, 3, 3);
  CHECK(one.ettr == three.ettr);
  CHECK(one.loss_s_per_day.lost_work == three.loss_s_per_day.lost_work);
  CHECK(workload::goodput_monte_carlo(run(0.5, 8), 50, 4).ettr != one.ettr);
}

TEST_CASE("goodput: as failures grow rare both methods tend to 1 - the checkpoint's cost", "[goodput]") {
  for (double interval_s : {3600.0, 0.0}) {  // a fixed interval, and the best one
    double previous_gap = 1;
    for (double rate : {1e-2, 1e-4, 1e-6, 1e-9, 0.0}) {
      auto r = run(rate, 0);
      r.checkpoint.interval_s = interval_s;
      const auto closed = workload::goodput_closed_form(r);
      const double limit = closed.checkpoint_interval_s / (closed.checkpoint_interval_s + r.checkpoint.write_s);
      const auto mc = workload::goodput_monte_carlo(r, 20, 5);
      INFO(rate << " per hour, interval " << closed.checkpoint_interval_s << " s");
      const double gap = std::max(std::abs(mc.ettr - limit), std::abs(closed.ettr - limit));
      CHECK(gap <= previous_gap + 1e-5);  // the run's end keeps its last part-interval: within write_s / run_s
      if (rate <= 1e-6) CHECK(gap < 1e-4);
      previous_gap = gap;
      if (rate == 0) CHECK(closed.ettr == Approx(limit).epsilon(1e-12));
    }
  }
}

TEST_CASE("goodput: an asynchronous checkpoint stalls less, and loses its write's lag", "[goodput]") {
  auto sync = run(0.3, 64);
  sync.checkpoint.write_s = 120;
  sync.checkpoint.interval_s = 1800;
  auto async = sync;
  async.checkpoint.async = true;
  async.checkpoint.stall_s = 5;
  const auto s = workload::goodput_monte_carlo(sync, 200, 1), a = workload::goodput_monte_carlo(async, 200, 1);
  CHECK(a.ettr > s.ettr);
  CHECK(a.loss_s_per_day.checkpoint < s.loss_s_per_day.checkpoint / 10);
  // Lost work: half a cycle, and for the asynchronous one its write under training as well.
  const auto ca = workload::goodput_closed_form(async);
  CHECK(ca.loss_s_per_day.lost_work > workload::goodput_closed_form(sync).loss_s_per_day.lost_work);
  CHECK(a.loss_s_per_day.lost_work == Approx(ca.loss_s_per_day.lost_work).epsilon(0.1));
  CHECK(a.ettr == Approx(ca.ettr).epsilon(0.01));
}

TEST_CASE("goodput: checkpoints in memory lose the work since the last snapshot, unless the failure took the copy",
          "[goodput]") {
  auto async = run(0.3, 64);
  async.checkpoint.write_s = 600;  // slow storage
  async.checkpoint.interval_s = 600;
  async.checkpoint.async = true;
  async.checkpoint.stall_s = 5;
  auto peers = async;
  peers.checkpoint.in_memory = true;
  peers.checkpoint.storage_every = 4;
  peers.checkpoint.memory_peers = 1;
  auto alone = peers;
  alone.checkpoint.memory_peers = 0;  // a swapped node takes its own copy: back to storage
  const double cycle = 605;
  // Per failure: half a cycle from memory; from storage, half of its 4 cycles and the write's lag.
  const double per_day = 0.3 * 24;  // failures
  const std::pair<const workload::RunReliability*, double> cases[] = {
      {&peers, cycle / 2}, {&async, cycle / 2 + 600}, {&alone, 4 * cycle / 2 + 600}};
  double last = 0;
  for (const auto& [r, lost_s] : cases) {
    const auto closed = workload::goodput_closed_form(*r);
    const auto mc = workload::goodput_monte_carlo(*r, 400, 5);
    INFO("lost per failure " << lost_s << " s: closed form " << closed.loss_s_per_day.lost_work << ", Monte-Carlo "
                             << mc.loss_s_per_day.lost_work);
    CHECK(closed.checkpoint_interval_s == 600);
    // To first order (a day of wall time holds 1 / (1 + X) of a day of training, X the losses a
    // second: ettr x cycle / interval); the renewal's exact figure a little above it.
    CHECK(closed.loss_s_per_day.lost_work == Approx(per_day * lost_s * closed.ettr * cycle / 600).epsilon(0.1));
    CHECK(closed.loss_s_per_day.lost_work > per_day * lost_s * closed.ettr * cycle / 600);
    CHECK(mc.loss_s_per_day.lost_work == Approx(closed.loss_s_per_day.lost_work).epsilon(0.1));
    CHECK(sum_with_kept(mc) == Approx(86400).epsilon(1e-9));
    CHECK(mc.loss_s_per_day.lost_work > last);  // in the order of the cases
    last = mc.loss_s_per_day.lost_work;
  }
  // A process restarted in place keeps its host memory: no peer needed.
  auto hang = alone;
  hang.failures = {{"hang", 0.3 / 3600, 0, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true}};
  CHECK(workload::goodput_monte_carlo(hang, 400, 5).loss_s_per_day.lost_work ==
        Approx(workload::goodput_monte_carlo(alone, 400, 5).loss_s_per_day.lost_work * (cycle / 2) /
               (4 * cycle / 2 + 600))
            .epsilon(0.15));
}

TEST_CASE("goodput: a hang costs its watchdog's timeout, a silent corruption the training since it", "[goodput]") {
  workload::RunReliability r = run(0, 0);
  r.failures = {{"hang", 0.1 / 3600, 600, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true}};
  const auto hang = workload::goodput_monte_carlo(r, 200, 2);
  CHECK(hang.loss_s_per_day.detection == Approx(2.4 * 600).epsilon(0.05 * 1.5));
  CHECK(hang.loss_s_per_day.detection ==
        Approx(workload::goodput_closed_form(r).loss_s_per_day.detection).epsilon(0.1));
  r.failures = {{"sdc", 0.02 / 3600, 4 * 3600, RecoveryPath::kInPlace, Rollback::kBeforeCorruption, false}};
  const auto sdc = workload::goodput_monte_carlo(r, 400, 2), sdc_closed = workload::goodput_closed_form(r);
  CHECK(sdc.loss_s_per_day.detection == 0);
  CHECK(sdc_closed.loss_s_per_day.lost_work > 0.48 * 4 * 3600);  // at least the 4 h trained in vain, 0.48 a day
  CHECK(sdc.loss_s_per_day.lost_work == Approx(sdc_closed.loss_s_per_day.lost_work).epsilon(0.1));
}

TEST_CASE("goodput: per-replica fault tolerance keeps the other replicas training", "[goodput]") {
  auto r = run(2, 1000);  // 2 failures an hour, spares enough
  r.failures[0].detection_s = 30;
  r.recovery.replicas = 16;
  const auto restart = workload::goodput_monte_carlo(r, 100, 9);
  r.recovery.strategy = workload::RecoveryStrategy::kPerReplica;
  const auto per_replica = workload::goodput_monte_carlo(r, 100, 9), closed = workload::goodput_closed_form(r);
  CHECK(per_replica.ettr > restart.ettr);
  CHECK(per_replica.loss_s_per_day.lost_work == 0);
  // Every failure reaches the job; none stops it whole.
  CHECK(per_replica.interruptions_per_day == Approx(48).epsilon(0.03));
  CHECK(per_replica.job_stops_per_day == 0);
  CHECK(closed.job_stops_per_day == 0);
  CHECK(restart.job_stops_per_day == restart.interruptions_per_day);
  // 48 recoveries a day: each stalls the job for its 30 s detection (a share S / (1 + S) of the
  // day, S = rate x 30), then one replica in 16 is out for 600 s while the rest train (a share
  // rate x 600 / 16 of what the stalls leave).
  const double stalls = 2.0 / 3600 * 30, stalled = stalls / (1 + stalls);
  CHECK(closed.loss_s_per_day.detection == Approx(86400 * stalled).epsilon(1e-9));
  CHECK(closed.loss_s_per_day.restart == Approx(86400 * (1 - stalled) * 2.0 / 3600 * 600 / 16).epsilon(1e-9));
  CHECK(per_replica.loss_s_per_day.restart == Approx(closed.loss_s_per_day.restart).epsilon(0.05));
  CHECK(per_replica.loss_s_per_day.detection == Approx(closed.loss_s_per_day.detection).epsilon(0.05));
  CHECK(per_replica.ettr == Approx(closed.ettr).epsilon(0.01));
}

TEST_CASE("goodput: an elastic job shrinks rather than wait for a node", "[goodput]") {
  auto r = run(1, 0);
  r.recovery.replicas = 8;
  const auto wait = workload::goodput_monte_carlo(r, 100, 4);
  r.recovery.strategy = workload::RecoveryStrategy::kElastic;
  r.recovery.repair_s = 3600;
  const auto shrink = workload::goodput_monte_carlo(r, 100, 4);
  CHECK(shrink.loss_s_per_day.spares < wait.loss_s_per_day.spares);  // an hour at 7/8 against 30 min at none
  CHECK(shrink.loss_s_per_day.spares == Approx(workload::goodput_closed_form(r).loss_s_per_day.spares).epsilon(0.05));
}

TEST_CASE("goodput: fail-slow costs the slow node's pace until it ends or is excluded", "[goodput]") {
  workload::FailSlow f{0, 30, 4 * 3600, 1.5, 1.5, 0};
  CHECK(workload::fail_slow_mean_loss_share(f) == Approx(1.0 / 3));
  CHECK(workload::fail_slow_mean_slowed_s(f) == Approx((4 * 3600 - 30) / std::log(480.0)));
  f.exclude_after_s = 600;
  CHECK(workload::fail_slow_excluded_share(f) == Approx(std::log(14400.0 / 600) / std::log(480.0)));
  CHECK(workload::fail_slow_mean_slowed_s(f) < 600);
  auto r = run(0, 64);
  r.fail_slow = {0.05 / 3600, 30, 4 * 3600, 1.1, 2.0, 0};
  const auto kept = workload::goodput_monte_carlo(r, 400, 6), kept_closed = workload::goodput_closed_form(r);
  CHECK(kept.loss_s_per_day.fail_slow == Approx(kept_closed.loss_s_per_day.fail_slow).epsilon(0.1));
  r.fail_slow.exclude_after_s = 600;
  const auto excluded = workload::goodput_monte_carlo(r, 400, 6), excluded_closed = workload::goodput_closed_form(r);
  CHECK(excluded.loss_s_per_day.fail_slow < kept.loss_s_per_day.fail_slow / 2);
  CHECK(excluded.loss_s_per_day.fail_slow == Approx(excluded_closed.loss_s_per_day.fail_slow).epsilon(0.1));
  CHECK(excluded.interruptions_per_day == Approx(excluded_closed.interruptions_per_day).epsilon(0.1));
}

TEST_CASE("goodput: software fails only while the job runs; hardware fails whatever it does", "[goodput]") {
  auto r = run(0, 0);
  r.recovery.restart_s = 3600;  // an hour down after each of one failure an hour: down about half the time
  r.failures = {{"software", 1.0 / 3600, 0, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true, true}};
  const auto software = workload::goodput_monte_carlo(r, 100, 8);
  r.failures[0].while_running = false;
  const auto hardware = workload::goodput_monte_carlo(r, 100, 8);
  CHECK(hardware.interruptions_per_day == Approx(24).epsilon(0.02));
  // A renewal of one hour up and one down, on average: 12 a day.
  CHECK(software.interruptions_per_day == Approx(12).epsilon(0.05));
  CHECK(software.ettr > hardware.ettr);
}

TEST_CASE("goodput: interruptions are counted by process, a slow node's exclusion and the episodes apart",
          "[goodput]") {
  auto r = run(0.02, 4);  // rare enough that the job is seldom down (a hang, maintenance: only while it runs)
  r.failures.push_back({"hang", 0.05 / 3600, 600, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true, true});
  r.failures.push_back({"maintenance", 1.0 / 168 / 3600, 0, RecoveryPath::kInPlace, Rollback::kNone, false});
  r.fail_slow = {0.2 / 3600, 30, 4 * 3600, 1.1, 2.0, 600};
  const auto closed = workload::goodput_closed_form(r);
  const auto mc = workload::goodput_monte_carlo(r, 100, 3);
  for (const auto* g : {&closed, &mc}) {
    REQUIRE(g->interruptions_per_day_by_process.size() == r.failures.size());
    double sum = g->exclusions_per_day;
    for (double x : g->interruptions_per_day_by_process) sum += x;
    CHECK(sum == Approx(g->interruptions_per_day).epsilon(1e-12));
  }
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    INFO(r.failures[i].kind);
    CHECK(mc.interruptions_per_day_by_process[i] == Approx(closed.interruptions_per_day_by_process[i]).epsilon(0.1));
  }
  CHECK(mc.exclusions_per_day == Approx(closed.exclusions_per_day).epsilon(0.1));
  // Episodes that end under the exclusion's 10 min stop nothing.
  CHECK(closed.fail_slow_episodes_per_day ==
        Approx(0.2 * 24 * (1 - workload::fail_slow_excluded_share(r.fail_slow))).epsilon(1e-12));
  CHECK(mc.fail_slow_episodes_per_day == Approx(closed.fail_slow_episodes_per_day).epsilon(0.1));
}

TEST_CASE("goodput: the restart's parts share its loss, the checkpoint read from memory where the copy survives",
          "[goodput]") {
  auto r = run(0.3, 64);
  r.recovery.image_s = 180;
  r.recovery.comm_init_s = 40;
  r.recovery.warmup_s = 60;
  r.recovery.restart_s = 280;
  r.recovery.storage_read_s = 30;
  r.recovery.memory_read_s = 2;
  r.recovery.swap_s = 300;
  const workload::FailureProcess& node = r.failures[0];
  CHECK(workload::restart_s_of(r, node) == 310);
  r.checkpoint.async = true;
  r.checkpoint.stall_s = 1;
  r.checkpoint.in_memory = true;
  r.checkpoint.memory_peers = 1;  // a swapped node's copy is on a peer
  CHECK(workload::restart_s_of(r, node) == 282);
  r.checkpoint.memory_peers = 0;
  CHECK(workload::restart_s_of(r, node) == 310);
  const auto closed = workload::goodput_closed_form(r);
  const auto parts = workload::restart_by_part(r, closed.loss_s_per_day.restart);
  CHECK(parts.total() == Approx(closed.loss_s_per_day.restart).epsilon(1e-12));
  // One kind of recovery: each part in proportion to its seconds (300 + 180 + 40 + 30 + 60, no operators).
  CHECK(parts.path / parts.total() == Approx(300.0 / 610));
  CHECK(parts.comm_init / parts.total() == Approx(40.0 / 610));
  CHECK(parts.checkpoint_read / parts.total() == Approx(30.0 / 610));
  CHECK(parts.whole == 0);
  CHECK(parts.operators == 0);
  // Given whole, the restart is one part.
  r.recovery.image_s = r.recovery.comm_init_s = r.recovery.warmup_s = 0;
  CHECK(workload::restart_by_part(r, 1.0).whole == Approx(280.0 / 610));
}

TEST_CASE("goodput: the closed form holds with the Monte-Carlo from 1K to 128K GPUs, many stops an hour included",
          "[goodput]") {
  // An H100-like job: hardware at 4.2 and the network at 0.3 per 1,000 node-days, software and
  // hangs while it runs, weekly maintenance, fail-slow nodes excluded after 30 min, operators;
  // communicator initialisation growing with the job. At 128K GPUs it stops ~75 times a day for
  // ~10 min each: a first-order form, each stop's cost as if they never overlapped, puts its
  // ETTR several times too high.
  for (auto strategy : {workload::RecoveryStrategy::kRestart, workload::RecoveryStrategy::kPerReplica,
                        workload::RecoveryStrategy::kElastic})
    for (int spares : {0, 32})
      for (double gpus : {1024.0, 4096.0, 16384.0, 65536.0, 131072.0}) {
        const double nodes = gpus / 8;
        workload::RunReliability r;
        r.failures = {
            {"hardware", nodes * 4.2e-3 / 86400, 34, RecoveryPath::kSwap, Rollback::kLastCheckpoint, true},
            {"network", nodes * 0.3e-3 / 86400, 34, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, false},
            {"software", nodes * 0.48e-3 / 86400, 34, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true, true},
            {"hang", nodes * 0.24e-3 / 86400, 600, RecoveryPath::kInPlace, Rollback::kLastCheckpoint, true, true},
            {"maintenance", 1.0 / 7 / 86400, 0, RecoveryPath::kInPlace, Rollback::kNone, false}};
        r.fail_slow = {nodes * 2e-5 / 3600, 30, 36000, 1.1, 2.0, 1800};
        r.checkpoint.write_s = 20;
        r.recovery = {strategy, 16, 300 + gpus * 0.00244};
        r.recovery.in_place_s = 60;
        r.recovery.swap_s = 300;
        r.recovery.requeue_s = 1800;
        r.recovery.repair_s = 86400;
        r.recovery.spare_nodes = spares;
        r.recovery.manual_fraction = 0.05;
        r.recovery.manual_s = 7200;
        r.run_s = 30 * 86400;
        const auto closed = workload::goodput_closed_form(r);
        r.checkpoint.interval_s = closed.checkpoint_interval_s;
        const auto mc = workload::goodput_monte_carlo(r, 60, 4);
        INFO(gpus << " GPUs, " << spares << " spares, strategy " << int(strategy) << ": closed form " << closed.ettr
                  << ", Monte-Carlo " << mc.ettr);
        CHECK(std::abs(closed.ettr - mc.ettr) < 0.03);
        // Counts within 3% or four Poisson standard deviations of the 60 x 30 days simulated.
        auto noise = [](double per_day) { return 4 * std::sqrt(per_day * 1800) / 1800; };
        CHECK(closed.interruptions_per_day ==
              Approx(mc.interruptions_per_day).epsilon(0.03).margin(noise(mc.interruptions_per_day)));
        CHECK(closed.job_stops_per_day ==
              Approx(mc.job_stops_per_day).epsilon(0.03).margin(noise(mc.job_stops_per_day)));
      }
}
