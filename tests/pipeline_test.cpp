#include <catch2/catch.hpp>
#include <random>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/platform.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/pipeline/schedule_check.hpp"
#include "workload/pipeline/schedule_generators.hpp"
#include "workload/pipeline/schedule_registry.hpp"

using namespace workload;

namespace {

PipelineMetrics run(const Schedule& s, const PassTimes& t) {
  const auto problems = check_schedule(s);
  INFO(s.kind << ": " << (problems.empty() ? "" : problems.front()));
  REQUIRE(problems.empty());
  const auto pg = pipeline_graph(s, t, 0.0);
  return pipeline_metrics(s, pg, core::simulate(net::StarPlatform(net::ideal_cluster(s.ranks)), pg.graph));
}

double uniform(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

}  // namespace

TEST_CASE("1F1B and ZB1P bubbles equal Table 2 wherever ZB-H1 applies", "[pipeline]") {
  // 1F1B: any F and B. ZB1P: any F, B and W with W <= F and W <= B - W, the regime in which a
  // deferred weight pass fits the gap it is meant to fill (ZB-H1's assumption); outside it the
  // next test applies.
  std::mt19937 rng(7);
  for (int pp : {4, 8, 16, 32})
    for (int m : {pp, 2 * pp + 3})
      for (int draw = 0; draw < 3; ++draw) {
        PassTimes t;
        t.forward_s = uniform(rng, 0.2, 3);
        t.backward_s = uniform(rng, 0.2, 5);
        t.weight_s = uniform(rng, 0.0, std::min(t.forward_s, t.backward_s / 2));
        INFO("pp " << pp << " m " << m << " F " << t.forward_s << " B " << t.backward_s << " W " << t.weight_s);
        const auto a = run(one_f_one_b(pp, m), t);
        CHECK(a.bubble_s == Approx((pp - 1) * (t.forward_s + t.backward_s)));
        CHECK(a.max_peak_activations == pp);
        CHECK(a.parameter_copies == 1);
        const auto z = run(zb1p(pp, m), t);
        CHECK(z.bubble_s == Approx((pp - 1) * (t.forward_s + t.backward_s - 2 * t.weight_s)));
        CHECK(z.max_peak_activations == pp);
        CHECK(z.parameter_copies == 1);
      }
}

TEST_CASE("ZB1P outside ZB-H1's regime: still sound, between the formula and 1F1B", "[pipeline]") {
  std::mt19937 rng(3);
  for (int draw = 0; draw < 20; ++draw) {
    PassTimes t;
    t.forward_s = uniform(rng, 0.2, 3);
    t.backward_s = uniform(rng, 0.2, 5);
    t.weight_s = t.backward_s * uniform(rng, 0.01, 0.99);
    INFO("F " << t.forward_s << " B " << t.backward_s << " W " << t.weight_s);
    const auto z = run(zb1p(8, 20), t);
    CHECK(z.bubble_s <= 7 * (t.forward_s + t.backward_s) + 1e-9);
    CHECK(z.bubble_s >= 7 * (t.forward_s + t.backward_s - 2 * t.weight_s) - 1e-9);
  }
}

TEST_CASE("DualPipe and DualPipeV bubbles equal Table 2 at the schedule's design point", "[pipeline]") {
  // The DualPipe order is fixed by its reference implementation for F = B* = W (B = 2F, W = F),
  // the point where the report's formula holds exactly; elsewhere the simulated bubble departs
  // from it (see the next test and the pipeline table's notes).
  std::mt19937 rng(11);
  for (int pp : {4, 8, 16, 32})
    for (int per_direction : {pp, pp + 3}) {
      PassTimes t;
      t.forward_s = uniform(rng, 0.2, 3);
      t.backward_s = 2 * t.forward_s;
      t.weight_s = t.forward_s;
      t.overlapped_s = uniform(rng, t.backward_s, t.forward_s + t.backward_s);
      INFO("pp " << pp << " per direction " << per_direction << " F " << t.forward_s << " F&B " << t.overlapped_s);
      const double formula = (pp / 2 - 1) * (t.overlapped_s + t.backward_s - 3 * t.weight_s);
      const auto d = run(dualpipe(pp, 2 * per_direction), t);
      CHECK(d.bubble_s == Approx(formula));
      CHECK(d.max_peak_activations == pp + 1);
      CHECK(d.parameter_copies == 2);
      // DualPipeV on pp / 2 devices runs the same pp stages: same bubble and activation chunks.
      const auto v = run(dualpipev(pp / 2, 2 * per_direction), t);
      CHECK(v.bubble_s == Approx(formula));
      CHECK(v.max_peak_activations == pp + 1);
      CHECK(v.parameter_copies == 2);
    }
}

TEST_CASE("DualPipe away from its design point: sound, and never worse than 1F1B", "[pipeline]") {
  std::mt19937 rng(5);
  for (int draw = 0; draw < 10; ++draw) {
    PassTimes t;
    t.forward_s = uniform(rng, 0.2, 3);
    t.backward_s = uniform(rng, 0.2, 5);
    t.weight_s = t.backward_s * uniform(rng, 0.01, 0.99);
    t.overlapped_s = uniform(rng, std::max(t.forward_s, t.backward_s), t.forward_s + t.backward_s);
    const auto d = run(dualpipe(8, 32), t);
    CHECK(d.bubble_s <= 7 * (t.forward_s + t.backward_s));  // never worse than 1F1B on 8 ranks
  }
}

TEST_CASE("interleaved 1F1B divides the bubble by the virtual stages", "[pipeline]") {
  PassTimes t{0.5, 1.25, 0.3, 1.5};  // per chunk: a stage's work split over v chunks
  for (int pp : {2, 4, 8})
    for (int v : {1, 2, 4}) {
      const auto s = one_f_one_b_interleaved(pp, 2 * pp, v);
      CHECK(run(s, t).bubble_s == Approx((pp - 1) * (t.forward_s + t.backward_s)));
      CHECK(s.stages_per_rank == v);
    }
}

TEST_CASE("every schedule over a grid is sound", "[pipeline]") {
  for (const auto& kind : schedule_kinds())
    for (int pp : {1, 2, 3, 4, 6, 8})
      for (int m : {1, 2, 4, 8, 12, 16, 24}) {
        ScheduleRequest q{kind, pp, m, 2};
        Schedule s;
        try {
          s = schedule_for(q);
        } catch (const core::InputError&) {
          continue;  // a request the schedule cannot serve; see the next test
        }
        INFO(kind << " pp " << pp << " m " << m);
        const auto problems = check_schedule(s);
        CHECK(problems.empty());
      }
}

TEST_CASE("the checker catches broken schedules", "[pipeline]") {
  auto s = one_f_one_b(4, 4);
  std::swap(s.steps[1][0], s.steps[1].back());  // a backward before its forward: deadlock
  CHECK_FALSE(check_schedule(s).empty());
  s = one_f_one_b(4, 4);
  s.steps[2].pop_back();  // a missing backward
  CHECK_THAT(check_schedule(s).front(), Catch::Contains("0 backwards"));
  s = zb1p(4, 4);
  s.steps[3].pop_back();  // a missing weight pass
  CHECK_THAT(check_schedule(s).front(), Catch::Contains("weight passes"));
  s = one_f_one_b(4, 4);
  s.steps[0].push_back(s.steps[1][0]);  // a chunk on the wrong rank
  CHECK_THAT(check_schedule(s).front(), Catch::Contains("belongs on rank 1"));
}

TEST_CASE("schedule requests that cannot be served name the field and the rule", "[pipeline]") {
  auto error = [](ScheduleRequest q) {
    try {
      schedule_for(q, "--");
    } catch (const core::InputError& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  CHECK(error({"dualpipe", 7, 28, 1}) == "--pp: 7 is odd; DualPipe needs an even number of ranks");
  CHECK(error({"dualpipe", 8, 21, 1}) ==
        "--microbatches: 21 is odd; DualPipe splits micro-batches evenly over its two directions");
  CHECK(error({"dualpipe", 8, 14, 1}) ==
        "--microbatches: 14 is too few; DualPipe on 8 ranks needs at least 2 x pp = 16");
  CHECK_THAT(error({"dualpipev", 4, 6, 1}), Catch::Contains("needs at least 2 x devices = 8"));
  CHECK_THAT(error({"1f1b", 0, 8, 1}), Catch::StartsWith("--pp: 0 is not allowed"));
  CHECK_THAT(error({"1f1b", 4, 0, 1}), Catch::StartsWith("--microbatches: 0 is not allowed"));
  CHECK_THAT(error({"1f1b", 4, 1000000000000LL, 1}), Catch::StartsWith("--microbatches: 1000000000000 is not allowed"));
  CHECK_THAT(error({"1f1b-interleaved", 4, 6, 2}), Catch::Contains("divisible by pp (4)"));
  CHECK_THAT(error({"1f1b-interleaved", 4, 8, 0}), Catch::StartsWith("--virtual: 0 is not allowed"));
  CHECK_THAT(error({"gpipe", 4, 8, 1}), Catch::StartsWith("--kind: 'gpipe' is unknown"));
}

TEST_CASE("tokens follow the codesim schedule format", "[pipeline]") {
  const auto d = dualpipe(8, 20);
  CHECK(render_rank(d, 0).rfind("rank 0: F0.0 F0.1 F0.2 F0.3 F0.4 F0.5 F0.6 F1.0 B1*.0 W1.0 F1.1", 0) == 0);
  CHECK(render_rank(d, 7).rfind("rank 7: F1.0 F1.1", 0) == 0);
  CHECK(render_rank(d, 3).find("F0.4 B1.0 F1.4&B0.0") != std::string::npos);  // middle rank: first pair split
  CHECK(render_rank(one_f_one_b(2, 2), 1) == "rank 1: F.0 B.0 F.1 B.1");
  CHECK(render_rank(zb1p(2, 2), 1) == "rank 1: F.0 B*.0 F.1 B*.1 W.0 W.1");
}
