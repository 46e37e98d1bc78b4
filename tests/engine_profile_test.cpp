#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "requests/listed_source.hpp"
#include "serving/engine_front_end.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace requests;
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
  // Handing a step to worker processes: only where the engine drives more than one GPU.
  e.overlap_scheduling = false;
  e.worker_dispatch_s = 6e-3;
  CHECK(e.step_s(5e-3, 100) == Approx(7e-3));
  CHECK(e.step_s(5e-3, 100, 1) == Approx(7e-3));
  CHECK(e.step_s(5e-3, 100, 2) == Approx(13e-3));
  CHECK_FALSE(e.adds_nothing());
  e.worker_dispatch_s = 0;
  e.frontend_s = 2e-3;
  e.tokenize_s_per_token = 1e-6;
  CHECK(e.frontend_delay_s(1000) == Approx(3e-3));

  // One request alone: each decode step waits for the CPU work, and the first token comes the
  // front end and one emission later than the bare engine's.
  workload::ServingRequest base;
  const workload::ServingDeployment p = prefill_unit();
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
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

TEST_CASE("engine profile: overlap leaves its exposed part, and its tokens come a step later", "[serving]") {
  EngineProfile e;
  e.step_cpu_s = 1e-3;
  e.overlap_scheduling = true;
  e.overlap_exposed_s = 1.6e-4;
  CHECK(e.step_s(5e-3, 10) == Approx(5.16e-3));  // hidden but for what still shows
  workload::ServingRequest base;
  StepCost prefill_cost(v3(), roofline(), prefill_unit(), ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  c.engine = e;
  const Request q = a_request(1, 4000, 100);
  const auto now = simulate_serving({q}, c).requests[0];
  c.engine.tokens_a_step_later = true;
  const auto later = simulate_serving({q}, c).requests[0];
  // The first decode step's token is handed out once the next step has run: a step later.
  const double step_s = (now.finish_s - now.first_token_s) / 99;
  CHECK(later.first_token_s - now.first_token_s == Approx(step_s).epsilon(0.05));
  CHECK(later.finish_s - later.first_token_s == Approx(now.finish_s - now.first_token_s).epsilon(1e-3));
}

TEST_CASE("engine front end: prompts queue behind each other on its one process", "[serving]") {
  EngineProfile e;
  e.frontend_s = 1e-3;
  e.tokenize_s_per_token = 1e-6;  // 10 ms a prompt of 10,000 tokens
  std::vector<Request> sent;
  for (int i = 0; i < 3; ++i) sent.push_back(a_request(1, 10000, 10));
  ListedSource listed(sent);
  EngineFrontEnd front(listed, e, 0, 10);
  CHECK(front.next()->arrival_s == Approx(1.011));
  CHECK(front.next()->arrival_s == Approx(1.021));  // the second waits for the first's tokenizing
  CHECK(front.next()->arrival_s == Approx(1.031));
  CHECK(front.mean_way_in_s() == Approx(0.021));
}
