#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "requests/listed_source.hpp"
#include "serving/engine_front_end.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace serving;
using namespace serving_fixtures;

TEST_CASE("engine profile: CPU work between steps or beside them; the request's way in and out", "[serving]") {
  EngineProfile e;
  e.step_cpu_s = 1e-3;
  e.step_cpu_per_sequence_s = 1e-5;
  CHECK(e.step_s(5e-3, 100) == Approx(7e-3));  // between steps: added
  e.overlap_scheduling = true;
  CHECK(e.step_s(5e-3, 100) == Approx(5e-3));  // beside the GPU's step: hidden
  CHECK(e.step_s(1e-3, 100) == Approx(2e-3));  // ... unless it is the longer
  e.frontend_s = 2e-3;
  e.tokenize_s_per_token = 1e-6;
  CHECK(e.frontend_delay_s(1000) == Approx(3e-3));

  // One request alone: each decode step waits for the CPU work, and the first token comes the
  // front end and one emission later than the bare engine's.
  workload::ServingRequest base;
  const workload::ServingDeployment p = prefill_unit();
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr), decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  const Request q = a_request(1, 4000, 100);
  const auto bare = simulate_serving({q}, c).requests[0];
  ServingConfig with = c;
  with.engine.step_cpu_s = 1e-3;
  with.engine.emit_s = 5e-4;
  with.engine.frontend_s = 2e-3;
  const std::vector<Request> one{q};
  ListedSource listed(one);
  EngineFrontEnd front(listed, with.engine);
  auto run = simulate_serving(front, with);
  apply_token_path(run, with.engine);
  const auto& r = run.requests[0];
  CHECK(r.arrival_s == Approx(1));
  // Prefill and first decode step each wait 1 ms of CPU work.
  CHECK(r.first_token_s - r.arrival_s == Approx(bare.first_token_s - 1 + 2e-3 + 2 * 1e-3 + 5e-4));
  CHECK((r.finish_s - r.first_token_s) / 99 == Approx((bare.finish_s - bare.first_token_s) / 99 + 1e-3).epsilon(1e-6));
  CHECK(run.decode.engine_s == Approx(1e-3));
}
