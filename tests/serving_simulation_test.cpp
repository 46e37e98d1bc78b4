#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "requests/generated_source.hpp"
#include "requests/request_generator.hpp"
#include "serving/autoscaling.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/request_series.hpp"
#include "serving/serving_metrics.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace requests;
using namespace serving;
using namespace serving_fixtures;

TEST_CASE("simulation: one request alone takes queue 0, prefill, transfer, and a step per token", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment p = decode_unit();
  p.gpus = p.routed_gpus = 32;
  p.direct_comm = false;
  p.redundant_experts = 32;
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c;
  c.prefill = unit_config(p, prefill_cost, 16, 16384);
  c.decode = unit_config(decode_unit(), decode_cost, 128, 256);
  c.duration_s = 10;
  const Request q = a_request(1, 4000, 100);
  const auto r = simulate_serving({q}, c);
  const auto& rec = r.requests[0];
  REQUIRE(rec.finish_s > 0);
  CHECK(rec.prefill_start_s == 1);
  StepLoad prefill;
  prefill.busiest.prefill_sequences = 1;
  prefill.busiest.prefill_tokens = 4000;
  prefill.unit_tokens = 4000;
  prefill.prefill = true;
  CHECK(rec.prefill_end_s - 1 == Approx(prefill_cost.seconds(prefill)));
  const double transfer = 4000 * c.prefill.memory.kv_bytes_per_token / c.kv_transfer_Bps;
  CHECK(rec.transfer_end_s - rec.prefill_end_s == Approx(transfer));
  // 100 decode steps, the first delivering the first token.
  StepLoad step;
  step.busiest.decode_sequences = 1;
  step.busiest.decode_context_tokens = 4000;
  step.unit_tokens = 1;
  const double one = decode_cost.seconds(step);
  CHECK(rec.first_token_s - rec.transfer_end_s == Approx(one));
  CHECK((rec.finish_s - rec.first_token_s) / 99 == Approx(one).epsilon(0.02));
  CHECK(r.unfinished == 0);

  // MTP with two drafts, both always accepted: three tokens a step, each step verifying two.
  ServingConfig mtp = c;
  mtp.mtp_drafts = 2;
  mtp.mtp_acceptance = {1.0, 1.0};
  const auto fast_run = simulate_serving({q}, mtp);
  const auto& fast = fast_run.requests[0];
  StepLoad verify = step;
  verify.mtp_drafts = 2;
  verify.unit_tokens = 3;
  const double three = decode_cost.seconds(verify);
  CHECK(three > one);
  CHECK((fast.finish_s - fast.first_token_s) / 33 == Approx(three).epsilon(0.02));  // 100 tokens: 34 steps
  // A draft never accepted: one token a step, each step paying the verification.
  mtp.mtp_acceptance = {0.0, 1.0};
  const auto slow_run = simulate_serving({q}, mtp);
  CHECK((slow_run.requests[0].finish_s - slow_run.requests[0].first_token_s) / 99 == Approx(three).epsilon(0.02));

  // Either phase given unlimited capacity (serve-plan measures the other alone): without decode
  // units a request is done when its KV cache has left; without prefill units its prompt is
  // ready at once and decode runs as before.
  ServingConfig no_decode = c;
  no_decode.decode_units = 0;
  no_decode.decode_unbounded = true;
  const auto alone_run = simulate_serving({q}, no_decode);
  const auto& alone = alone_run.requests[0];
  CHECK(alone.prefill_end_s == rec.prefill_end_s);
  CHECK(alone.finish_s == Approx(rec.transfer_end_s));
  CHECK(alone.first_token_s == alone.finish_s);
  ServingConfig no_prefill = c;
  no_prefill.prefill_units = 0;
  no_prefill.prefill_unbounded = true;
  const auto quick_run = simulate_serving({q}, no_prefill);
  const auto& quick = quick_run.requests[0];
  CHECK(quick.prefill_end_s == 1);
  CHECK(quick.transfer_end_s - 1 == Approx(transfer));
  CHECK(quick.finish_s - quick.transfer_end_s == Approx(rec.finish_s - rec.transfer_end_s));
}

TEST_CASE("simulation: a KV cache between ranks of one NVLink domain moves over NVLink, else over the NICs",
          "[serving]") {
  workload::ServingRequest base;
  StepCost prefill_cost(v3(), roofline(), prefill_unit(), ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  c.kv_transfer_latency_s = 1e-5;
  c.kv_scale_up_Bps = 900e9;
  c.kv_scale_up_latency_s = 3e-6;
  const Request q = a_request(1, 3000, 10);
  const double bytes = 3000 * c.prefill.memory.kv_bytes_per_token;
  auto transfer_s = [&](const ServingConfig& config) {
    const auto r = simulate_serving({q}, config);
    return r.requests[0].transfer_end_s - r.requests[0].prefill_end_s;
  };
  // 8-GPU nodes: the prefill unit's 32 GPUs fill four, the decode unit begins on the fifth.
  c.domain_gpus = 8;
  CHECK_FALSE(kv_over_nvlink_somewhere(c));
  CHECK(transfer_s(c) == Approx(1e-5 + bytes / c.kv_transfer_Bps));
  // 72-GPU domains: the decode unit's first 40 ranks share the prefill unit's domain.
  c.domain_gpus = 72;
  CHECK(kv_over_nvlink_somewhere(c));
  CHECK(transfer_s(c) == Approx(3e-6 + bytes / 900e9));
  // No domain given: the NICs.
  c.domain_gpus = 0;
  CHECK_FALSE(kv_over_nvlink_somewhere(c));
  CHECK(transfer_s(c) == Approx(1e-5 + bytes / c.kv_transfer_Bps));
}

TEST_CASE("placement: a DP rank's NVLink domain is the one all its GPUs are in", "[serving]") {
  workload::ServingRequest base;
  StepCost prefill_cost(v3(), roofline(), prefill_unit(), ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.domain_gpus = 72;
  CHECK(nvlink_domain(c, c.decode, 32, 39) == 0);   // GPU 71
  CHECK(nvlink_domain(c, c.decode, 32, 40) == 1);   // GPU 72
  CHECK(nvlink_domain(c, c.decode, 32, 143) == 2);  // GPU 175
  UnitConfig tp4 = c.decode;
  tp4.deployment.attention_tp = 4;
  CHECK(nvlink_domain(c, tp4, 70, 0) == -1);  // GPUs 70-73 span two
  CHECK(nvlink_domain(c, tp4, 70, 1) == 1);   // GPUs 74-77
  UnitConfig staged = tp4;
  staged.deployment.gpus = 16;
  staged.deployment.pipeline_stages = 2;
  CHECK(nvlink_domain(c, staged, 0, 3) == 0);    // its two stages' 32 GPUs in one domain
  CHECK(nvlink_domain(c, staged, 48, 0) == -1);  // GPUs 48-79
  // The prefill units end where the decode units begin: 2 x 32 GPUs, then decode from GPU 64.
  c.prefill_units = 2;
  CHECK(kv_over_nvlink_somewhere(c));
  c.prefill_units = 3;  // decode from GPU 96: prefill's last rank (GPU 95) and decode's first (96) in domain 1
  CHECK(kv_over_nvlink_somewhere(c));
  c.domain_gpus = 32;  // decode from GPU 96, a domain's first
  CHECK_FALSE(kv_over_nvlink_somewhere(c));
}

TEST_CASE("simulation: KV caches to one decode rank queue on its NICs", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 128;
  d.redundant_experts = 0;
  d.attention_tp = 128;  // one DP rank takes every request
  StepCost cost(v3(), roofline(), d, ib(), base, nullptr);
  ServingConfig c;
  c.decode = unit_config(d, cost, 128, 256);
  c.prefill = c.decode;
  c.prefill_units = 0;
  c.prefill_unbounded = true;
  c.duration_s = 10;
  c.kv_transfer_latency_s = 1e-5;
  const Request q = a_request(1, 3000, 10);
  const auto r = simulate_serving({q, q, q}, c);
  const double transfer = 1e-5 + 3000 * c.prefill.memory.kv_bytes_per_token / c.kv_transfer_Bps;
  CHECK(r.requests[0].transfer_end_s - 1 == Approx(transfer));
  CHECK(r.requests[1].transfer_end_s - r.requests[0].transfer_end_s == Approx(transfer));
  CHECK(r.requests[2].transfer_end_s - r.requests[1].transfer_end_s == Approx(transfer));
}

TEST_CASE("simulation: tokens are conserved, load raises latency, deterministic, KV pressure preempts", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  auto run = [&](double rate, int max_running, long long kv_tokens, Preemption preemption) {
    ServingConfig c = colocated(cost, max_running);
    if (kv_tokens > 0) c.decode.memory.kv_group_tokens = c.decode.memory.kv_tokens = kv_tokens;
    c.preemption = preemption;
    // Requests live about 12 s: the warm-up outlasts one, so the window sees the steady state.
    c.duration_s = 60;
    c.warmup_s = 20;
    GeneratedWorkload w;
    w.arrivals.rate_per_s = rate;
    w.duration_s = 60;
    w.input = {LengthKind::kUniform, 0, 0, 500, 3000};
    w.output = {LengthKind::kUniform, 0, 0, 50, 400};
    const auto requests = generate_requests(w);
    auto result = simulate_serving(requests, c);
    long long asked = 0, made = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      asked += requests[i].output_tokens;
      if (result.requests[i].finish_s >= 0) made += requests[i].output_tokens;
    }
    INFO("rate " << rate << " kv " << kv_tokens << " preemptions " << result.preemptions << " end " << result.end_s);
    CHECK(result.unfinished == 0);
    CHECK(made == asked);
    return std::pair{result, serving_metrics(result, c, {})};
  };
  const auto [light_r, light] = run(10, 64, 0, Preemption::kRecompute);
  const auto [heavy_r, heavy] = run(80, 64, 0, Preemption::kRecompute);
  CHECK(heavy.ttft_s.p90 > light.ttft_s.p90);
  CHECK(heavy.tpot_s.p50 > light.tpot_s.p50);
  CHECK(heavy_r.decode.mean_batch > light_r.decode.mean_batch);
  CHECK(light.output_tokens_per_s == Approx(light.request_rate_per_s * 225).epsilon(0.1));
  const auto again = run(80, 64, 0, Preemption::kRecompute).second;
  CHECK(again.ttft_s.p99 == heavy.ttft_s.p99);
  // A KV cache of 12,000 tokens per rank cannot hold every sequence it admits as they grow to
  // 3,400 tokens: the latest admitted are preempted, and all still finish.
  const auto [roomy_r, roomy] = run(20, 64, 0, Preemption::kRecompute);
  const auto [tight_r, tight] = run(20, 64, 12000, Preemption::kRecompute);
  CHECK(roomy_r.preemptions == 0);
  CHECK(tight_r.preemptions > 0);
  CHECK(tight.e2e_s.p99 > roomy.e2e_s.p99);
  const auto [swap_r, swap] = run(20, 64, 12000, Preemption::kSwap);
  CHECK(swap_r.preemptions > 0);
}

TEST_CASE("simulation: a dense model's DP ranks step on their own clocks; EP-joined ranks wait for the busiest",
          "[serving]") {
  // Llama-3.1-70B on one 8-GPU node at TP4: two replicas. A long prompt reaches the first, a
  // short one the second just after. No collective joins the replicas, so the short prompt's
  // first token does not wait for the long prompt's prefill; ranks joined by an all-to-all would.
  const workload::Model& llama = workload::model_by_name("llama-3.1-70b");
  workload::ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 4;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  StepCost cost(llama, roofline(), d, ib(), workload::ServingRequest{}, nullptr);
  ServingConfig c;
  c.disaggregated = false;
  c.decode.deployment = d;
  c.decode.max_running = 64;
  c.decode.max_batch_tokens = 16384;
  MemoryInput in;
  in.max_step_tokens = 16384;
  in.runtime_reserve_bytes = 8e9;
  in.weights = hw::GemmPrecision::kFp8;
  c.decode.memory = plan_memory(llama, h800(), d, in);
  c.decode.cost = &cost;
  c.duration_s = 10;
  Request long_prompt, short_prompt;
  long_prompt.arrival_s = 1;
  long_prompt.input_tokens = 16000;
  long_prompt.output_tokens = 2;
  short_prompt.arrival_s = 1.001;
  short_prompt.input_tokens = 100;
  short_prompt.output_tokens = 2;
  c.decode.ranks_step_together = false;
  const auto apart = simulate_serving({long_prompt, short_prompt}, c);
  c.decode.ranks_step_together = true;
  const auto together = simulate_serving({long_prompt, short_prompt}, c);
  const double long_prefill_s = apart.requests[0].first_token_s - 1;
  const double short_ttft_apart = apart.requests[1].first_token_s - 1.001;
  CHECK(apart.requests[0].first_token_s == Approx(together.requests[0].first_token_s));
  CHECK(short_ttft_apart < 0.1 * long_prefill_s);
  CHECK(together.requests[1].first_token_s - 1.001 > long_prefill_s);
}

TEST_CASE("simulation: KV caches come in ahead of a full batch and join it as places free", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 128;
  d.redundant_experts = 0;
  d.attention_tp = 128;
  StepCost cost(v3(), roofline(), d, ib(), base, nullptr);
  ServingConfig c;
  c.decode = unit_config(d, cost, 1, 256);  // one sequence a step
  c.prefill = c.decode;
  c.prefill_units = 0;
  c.prefill_unbounded = true;
  c.duration_s = 10;
  const Request q = a_request(1, 3000, 20);
  const auto r = simulate_serving({q, q}, c);
  const auto &a = r.requests[0], &b = r.requests[1];
  // The second's cache arrives while the first decodes, and it decodes from the step after.
  CHECK(b.transfer_end_s < a.finish_s);
  CHECK(b.first_token_s > a.finish_s);
  StepLoad step;
  step.busiest.decode_sequences = 1;
  step.busiest.decode_context_tokens = 3000;
  step.unit_tokens = 1;
  CHECK(b.first_token_s - a.finish_s == Approx(cost.seconds(step)).epsilon(0.02));
}

TEST_CASE("simulation: a step across the window's end counts its tokens by its share inside", "[serving]") {
  workload::ServingRequest base;
  const workload::ServingDeployment p = prefill_unit();
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.decode_units = 0;
  c.decode_unbounded = true;
  const Request q = a_request(1, 16000, 1);
  StepLoad prefill;
  prefill.busiest.prefill_sequences = 1;
  prefill.busiest.prefill_tokens = 16000;
  prefill.unit_tokens = 16000;
  prefill.prefill = true;
  const double step_s = prefill_cost.seconds(prefill);
  c.duration_s = 1 + 0.25 * step_s;  // a quarter of the prefill step inside the window
  const auto r = simulate_serving({q}, c);
  CHECK(r.input_tokens_in_window == Approx(0.25 * 16000).epsilon(1e-6));
}

TEST_CASE("a fleet over time: streamed records tally as kept ones do; autoscaling follows the load", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.decode_units = 4;
  c.duration_s = 180;
  c.warmup_s = 0;
  c.interval_s = 30;
  GeneratedWorkload w;
  w.duration_s = 180;
  w.input = {LengthKind::kUniform, 0, 0, 200, 2000};
  w.output = {LengthKind::kUniform, 0, 0, 20, 300};
  w.arrivals.profile = LoadProfile({4, 60, 4}, 60);
  w.arrivals.rate_per_s = 1;
  const Slo slo{2.0, 0.05};

  // The same run, its records kept and streamed.
  GeneratedSource kept_source(w), streamed_source(w);
  const auto kept = simulate_serving(kept_source, c);
  RequestSeries series(c.interval_s, slo);
  const auto streamed = simulate_serving(streamed_source, c, {}, [&](const RequestRecord& r) { series.add(r); });
  series.finish(streamed.end_s);
  CHECK(streamed.requests.empty());
  CHECK(streamed.arrived == static_cast<long long>(kept.requests.size()));
  CHECK(streamed.end_s == kept.end_s);
  const auto m = serving_metrics(kept, c, slo), s = streamed_metrics(series, streamed, c);
  CHECK(s.measured == m.measured);
  CHECK(s.finished == m.finished);
  CHECK(s.goodput_requests_per_s == Approx(m.goodput_requests_per_s));
  CHECK(s.ttft_s.p90 == Approx(m.ttft_s.p90).epsilon(0.011));
  CHECK(s.tpot_s.p50 == Approx(m.tpot_s.p50).epsilon(0.011));
  double output = 0, arrivals = 0, asked = 0;
  for (std::size_t i = 0; i < streamed.intervals.size(); ++i) {
    const auto& f = streamed.intervals[i];
    output += f.output_tokens;
    arrivals += double(f.arrivals);
    if (double(i + 1) * c.interval_s <= streamed.end_s)
      CHECK(f.decode_unit_s == Approx(4 * c.interval_s));  // no autoscaling: all four units throughout
  }
  for (const auto& q : kept.requests) asked += q.output_tokens;
  REQUIRE(kept.unfinished == 0);
  CHECK(output == asked);  // every token of every request, the drain included
  CHECK(arrivals == double(streamed.arrived));
  CHECK(streamed.intervals.at(2).arrivals > 5 * streamed.intervals.at(0).arrivals);  // the profile's second minute

  // Autoscaled from one unit: more while the load is high, fewer again after; never above max.
  ServingConfig scaled = c;
  scaled.decode = colocated(cost, 8).decode;  // 8 sequences per DP rank: the high load fills one unit
  scaled.autoscaling.interval_s = 5;
  scaled.autoscaling.cooldown_s = 10;
  PhaseScaling& p = scaled.autoscaling.decode;
  p.enabled = true;
  p.min_units = 1;
  p.max_units = 4;
  p.initial_units = 1;
  p.scale_down_below = 0.3;
  p.startup_s = 5;
  scaled.drain_limit_s = 600;
  GeneratedSource source(w);
  const auto run = simulate_serving(source, scaled);
  INFO("ups " << run.scale_ups << ", downs " << run.scale_downs);
  REQUIRE(run.intervals.size() >= 6);
  const auto units = [&](int i) { return run.intervals[std::size_t(i)].decode_unit_s / scaled.interval_s; };
  CHECK(units(0) < 1.5);
  CHECK(units(3) > units(0) + 0.5);
  CHECK(units(5) < units(3));
  int peak = 0;
  for (const auto& f : run.intervals) peak = std::max(peak, f.decode_peak);
  CHECK(peak <= 4);
  CHECK(run.scale_ups > 0);
  CHECK(run.scale_downs > 0);
  CHECK(run.unfinished == 0);
}

TEST_CASE("inter-token latency: every decode step counts once for each sequence it streams a token to after its first",
          "[serving]") {
  workload::ServingRequest base;
  StepCost prefill_cost(v3(), roofline(), prefill_unit(), ib(), base, nullptr),
      decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  c.mtp_drafts = 0;
  c.mtp_acceptance.clear();
  const Request q = a_request(1, 4000, 50);
  const auto run = simulate_serving({q}, c);
  const auto& r = run.requests[0];
  // Disaggregated: the first decode step gives the first token; the 49 after it are chunks, each
  // one step long, the request's whole decode after its first token.
  CHECK(run.inter_token_s.count() == 49);
  CHECK(run.inter_token_s.mean() * 49 == Approx(r.finish_s - r.first_token_s));
  CHECK(run.inter_token_s.percentile(50) == Approx((r.finish_s - r.first_token_s) / 49).epsilon(0.01));
  // Two requests decoding side by side: twice the chunks.
  Request q2 = q;
  q2.arrival_s = 1.0001;
  CHECK(simulate_serving({q, q2}, c).inter_token_s.count() == 98);
}

TEST_CASE("simulation: the step breakdown is the steps' own parts averaged, adding up to the mean step", "[serving]") {
  // Colocated steps are of two kinds, decode alone (memory-bound) and with a prompt's chunk
  // (compute-bound): a step at the mean load is neither, and is shorter than the mean step.
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.duration_s = 40;
  c.warmup_s = 10;
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 20;
  w.duration_s = 40;
  w.input = {LengthKind::kUniform, 0, 0, 500, 3000};
  w.output = {LengthKind::kUniform, 0, 0, 50, 400};
  const auto r = simulate_serving(generate_requests(w), c);
  REQUIRE(r.decode.steps > 0);
  CHECK(r.decode.mean_parts.step_s == Approx(r.decode.mean_step_s).epsilon(1e-9));  // no engine: the GPU's step alone
  CHECK(r.decode.mean_parts.attention_s > 0);
  CHECK(r.decode.mean_parts.routed_experts_s > 0);
}
