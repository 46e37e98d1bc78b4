#pragma once
// DeepSeek-V3's serving units on H800s, and configs of them, for the serving tests.
#include "hw/gpu.hpp"
#include "requests/request_generator.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "workload/model/model.hpp"

using namespace requests;
using namespace serving;

namespace serving_fixtures {

inline const workload::Model& v3() { return workload::model_by_name("deepseek-v3"); }
inline const hw::Gpu& h800() { return hw::gpu_by_name("H800"); }
inline workload::Roofline roofline() { return workload::Roofline(h800(), workload::KernelEfficiency{}, true); }
inline workload::ServingLinks ib() { return workload::ServingLinks{160e9, 50e9, 3.33e-6, 3.7e-6, 64e9}; }

// DeepSeek's decode unit: 144 GPUs, DP attention, EP144 with 32 redundant experts.
inline workload::ServingDeployment decode_unit() {
  workload::ServingDeployment d;
  d.gpus = 144;
  d.attention_tp = 1;
  d.routed_gpus = 144;
  d.redundant_experts = 32;
  d.dedicated_shared = false;
  return d;
}

// One request: when it arrives and how long its prompt and answer are.
inline Request a_request(double arrival_s, int input_tokens, int output_tokens) {
  Request q;
  q.arrival_s = arrival_s;
  q.input_tokens = input_tokens;
  q.output_tokens = output_tokens;
  return q;
}

inline UnitConfig unit_config(const workload::ServingDeployment& d, StepCost& cost, int max_running,
                              int max_batch_tokens) {
  UnitConfig u;
  u.deployment = d;
  u.max_running = max_running;
  u.max_batch_tokens = max_batch_tokens;
  MemoryInput in;
  in.max_step_tokens = max_batch_tokens;
  in.runtime_reserve_bytes = 8e9;
  u.memory = plan_memory(v3(), h800(), d, in);
  u.cost = &cost;
  return u;
}

// DeepSeek's prefill unit: 32 GPUs, EP32, the all-to-all forwarded.
inline workload::ServingDeployment prefill_unit() {
  workload::ServingDeployment p = decode_unit();
  p.gpus = p.routed_gpus = 32;
  p.direct_comm = false;
  return p;
}

// A colocated unit of 32 GPUs: the decode unit cut to DP32 and EP32.
inline workload::ServingDeployment colocated_unit() {
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 32;
  return d;
}

// One colocated unit of those on this step cost, 4,096 new tokens a DP rank and step.
inline ServingConfig colocated(StepCost& cost, int max_running) {
  ServingConfig c;
  c.disaggregated = false;
  c.decode = unit_config(colocated_unit(), cost, max_running, 4096);
  return c;
}

// One prefill and one decode unit of those, on these step costs.
inline ServingConfig prefill_and_decode(StepCost& prefill_cost, StepCost& decode_cost) {
  ServingConfig c;
  c.prefill = unit_config(prefill_unit(), prefill_cost, 16, 16384);
  c.decode = unit_config(decode_unit(), decode_cost, 128, 256);
  return c;
}

// A minute of prompts of 200 to 2,000 tokens and answers of 20 to 200, uniform.
inline GeneratedWorkload a_minute_of_requests() {
  GeneratedWorkload w;
  w.duration_s = 60;
  w.input = {LengthKind::kUniform, 0, 0, 200, 2000};
  w.output = {LengthKind::kUniform, 0, 0, 20, 200};
  return w;
}

}  // namespace serving_fixtures
