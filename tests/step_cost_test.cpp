#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace serving;
using namespace serving_fixtures;

TEST_CASE("step cost: a grid point equals the direct figure; nearby loads stay within 2% of theirs", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  for (double seqs : {1.0, 37.0, 93.0})
    for (double ctx : {517.0, 3000.0, 11111.0}) {
      StepLoad load;
      load.busiest.decode_sequences = seqs;
      load.busiest.decode_context_tokens = ctx;
      load.unit_tokens = static_cast<long long>(seqs * 144 * 0.9);
      const double kept = cost.seconds(load), direct = cost.direct_seconds(load);
      CHECK(kept == Approx(direct).epsilon(0.02));
    }
  StepLoad load;
  load.busiest.decode_sequences = 64;
  load.busiest.decode_context_tokens = 4096;
  load.unit_tokens = 64 * 144;
  const double a = cost.seconds(load);
  const long long computed = cost.computed();
  CHECK(cost.seconds(load) == a);
  CHECK(cost.computed() == computed);  // kept, not recomputed
  // More context, longer steps; an MTP step verifying two tokens costs more than a plain one.
  load.busiest.decode_context_tokens = 16384;
  CHECK(cost.seconds(load) > a);
  load.mtp_drafts = 1;
  CHECK(cost.seconds(load) > a);
}

TEST_CASE("step cost: fewer tokens' routing is the start of more tokens' (the cache takes it, the figure is the same)",
          "[serving]") {
  workload::ServingRequest q;
  q.busiest_group = workload::GroupLoad{20, 3000, 0, 0, 0};
  auto step = [&](long long tokens, workload::AllToAllCache* cache) {
    q.unit_tokens = tokens;
    return workload::serving_step(v3(), roofline(), decode_unit(), ib(), q, nullptr, cache).step_s;
  };
  workload::AllToAllCache warm;
  step(20000, &warm);
  for (long long tokens : {7LL, 2880LL, 19999LL}) {
    workload::AllToAllCache cold;
    CHECK(step(tokens, &warm) == step(tokens, &cold));
    CHECK(step(tokens, &warm) == step(tokens, nullptr));
  }
}
