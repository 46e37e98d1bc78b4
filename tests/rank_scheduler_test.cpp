#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace requests;
using namespace serving;
using namespace serving_fixtures;

TEST_CASE("schedulers: prefill first pauses decoding for whole prompts; static batches wait for the last to finish",
          "[serving]") {
  const workload::Model& llama = workload::model_by_name("llama-3.1-70b");
  const hw::Gpu& h100 = hw::gpu_by_name("H100");
  workload::ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 8;
  d.micro_batches = 1;
  d.dedicated_shared = false;
  workload::ServingRequest base;
  StepCost cost(llama, workload::Roofline(h100, workload::KernelEfficiency{}, true), d, ib(), base, nullptr);
  ServingConfig c;
  c.disaggregated = false;
  c.decode.deployment = d;
  c.decode.max_running = 64;
  c.decode.max_batch_tokens = 2048;
  c.decode.ranks_step_together = false;
  MemoryInput in;
  in.max_step_tokens = 8192;
  in.runtime_reserve_bytes = 8e9;
  in.weights = hw::GemmPrecision::kFp8;
  c.decode.memory = plan_memory(llama, h100, d, in);
  c.decode.cost = &cost;
  c.prefill = c.decode;
  c.duration_s = 30;
  // One long answer decoding, then three long prompts at once.
  const Request first = a_request(0, 100, 200);
  std::vector<Request> requests{first};
  for (int i = 0; i < 3; ++i) { requests.push_back(a_request(0.2, 6000, 5)); }
  const double alone_s = simulate_serving({first}, c).requests[0].finish_s;
  const auto chunked = simulate_serving(requests, c);
  ServingConfig first_c = c;
  first_c.scheduler = Scheduler::kPrefillFirst;
  const auto prefill_first = simulate_serving(requests, first_c);
  // Prefill first: each prompt whole in a step of its own, the long answer paused through them
  // all; chunked: the answer gains a token in every chunk's step.
  double prompt_steps_s = 0;
  for (int i = 1; i <= 3; ++i) {
    const auto& r = prefill_first.requests[static_cast<std::size_t>(i)];
    CHECK(r.prefill_end_s - r.prefill_start_s ==
          Approx(prefill_first.requests[1].prefill_end_s - prefill_first.requests[1].prefill_start_s));
    prompt_steps_s += r.prefill_end_s - r.prefill_start_s;
  }
  CHECK(prefill_first.requests[0].finish_s - alone_s >= 0.99 * prompt_steps_s);
  CHECK(chunked.requests[0].finish_s - alone_s < 0.98 * (prefill_first.requests[0].finish_s - alone_s));
  // The first prompt's first token comes sooner when nothing shares its step.
  CHECK(prefill_first.requests[1].first_token_s < chunked.requests[1].first_token_s);

  ServingConfig static_c = c;
  static_c.scheduler = Scheduler::kStatic;
  const auto batched = simulate_serving(requests, static_c);
  // The prompts arriving while the first request decodes wait for it to finish.
  CHECK(batched.requests[1].prefill_start_s >= batched.requests[0].finish_s);
  CHECK(chunked.requests[1].prefill_start_s < chunked.requests[0].finish_s);
  for (const auto* run : {&chunked, &prefill_first, &batched}) CHECK(run->unfinished == 0);
}
