#include <catch2/catch.hpp>

#include "workload/goodput/goodput.hpp"

namespace {

workload::RunReliability run(double rate_per_hour, int spares) {
  workload::RunReliability r;
  r.stop_rate_per_s = r.node_stop_rate_per_s = rate_per_hour / 3600;
  r.checkpoint_write_s = 30;
  r.restart_s = 600;
  r.requeue_s = 1800;
  r.repair_s = 86400;
  r.spare_nodes = spares;
  r.run_s = 54 * 86400;
  return r;
}

}  // namespace

TEST_CASE("goodput: the closed form and the Monte-Carlo agree where failures are rare enough", "[goodput]") {
  for (int spares : {0, 8, 32})
    for (double rate : {0.02, 0.1}) {  // first order: rate x (interval + recovery) up to about 0.1
      INFO(rate << " per hour, " << spares << " spares");
      const auto closed = workload::goodput_closed_form(run(rate, spares));
      const auto mc = workload::goodput_monte_carlo(run(rate, spares), 200, 7);
      CHECK(mc.effective_fraction == Approx(closed.effective_fraction).epsilon(0.02));
      CHECK(mc.interruptions_per_day == Approx(closed.interruptions_per_day).epsilon(0.1));
    }
}

TEST_CASE("goodput: the best interval is Young's to first order, and beats its neighbours", "[goodput]") {
  auto r = run(0.1, 0);
  const double best = workload::best_checkpoint_interval_s(r);
  CHECK(best == Approx(std::sqrt(2 * 30 / r.stop_rate_per_s)).epsilon(0.1));
  const double at_best = workload::goodput_closed_form(r).effective_fraction;
  for (double factor : {0.5, 2.0}) {
    r.checkpoint_interval_s = best * factor;
    CHECK(workload::goodput_closed_form(r).effective_fraction < at_best);
  }
}

TEST_CASE("goodput: spares take the re-queue out, and a seed gives the same run", "[goodput]") {
  const auto none = workload::goodput_monte_carlo(run(0.5, 0), 50, 3);
  const auto many = workload::goodput_monte_carlo(run(0.5, 64), 50, 3);
  CHECK(none.requeues_per_day == Approx(none.interruptions_per_day));
  CHECK(many.requeues_per_day == 0);
  CHECK(many.effective_fraction > none.effective_fraction);
  CHECK(workload::goodput_monte_carlo(run(0.5, 8), 50, 3).effective_fraction ==
        workload::goodput_monte_carlo(run(0.5, 8), 50, 3).effective_fraction);
  // A 54-day run at 16,384 GPUs (2,048 nodes at Meta RSC-1's 6.5 failures per 1,000 node-days).
  CHECK(workload::goodput_monte_carlo(run(2048 * 2.708e-4, 32), 100, 1).interruptions_per_day == Approx(2048 * 2.708e-4 * 24).epsilon(0.05));
}

TEST_CASE("goodput: as failures grow rare both methods tend to 1 - the checkpoint's cost, and none gives exactly that", "[goodput]") {
  for (double interval_s : {3600.0, 0.0}) {  // a fixed interval, and the best one
    double previous_gap = 1;
    for (double rate : {1e-2, 1e-4, 1e-6, 1e-9, 0.0}) {
      auto r = run(rate, 0);
      r.checkpoint_interval_s = interval_s;
      const auto closed = workload::goodput_closed_form(r);
      const double limit = closed.checkpoint_interval_s / (closed.checkpoint_interval_s + r.checkpoint_write_s);
      const auto mc = workload::goodput_monte_carlo(r, 20, 5);
      INFO(rate << " per hour, interval " << closed.checkpoint_interval_s << " s");
      const double gap = std::max(std::abs(mc.effective_fraction - limit), std::abs(closed.effective_fraction - limit));
      CHECK(gap <= previous_gap);
      if (rate <= 1e-6) CHECK(gap < 1e-4);
      previous_gap = gap;
      if (rate == 0) {
        CHECK(closed.effective_fraction == Approx(limit).epsilon(1e-12));
        CHECK(mc.effective_fraction == Approx(closed.effective_fraction).epsilon(1e-12));
      }
    }
  }
}
