#include "serving/floor/fleet_series.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace serving {

namespace {

constexpr double workload::ServingStepBreakdown::*kBreakdownParts[] = {
    &workload::ServingStepBreakdown::attention_s,     &workload::ServingStepBreakdown::routed_experts_s,
    &workload::ServingStepBreakdown::shared_expert_s, &workload::ServingStepBreakdown::gate_s,
    &workload::ServingStepBreakdown::dense_ffn_s,     &workload::ServingStepBreakdown::memory_kernels_s,
    &workload::ServingStepBreakdown::tp_comm_s,       &workload::ServingStepBreakdown::mtp_s,
    &workload::ServingStepBreakdown::head_s,          &workload::ServingStepBreakdown::dispatch_s,
    &workload::ServingStepBreakdown::combine_s,       &workload::ServingStepBreakdown::exposed_comm_s,
    &workload::ServingStepBreakdown::pipeline_s,      &workload::ServingStepBreakdown::step_s};

}  // namespace

void StepSums::add(double step_s, double batch_per_rank, double unit_tokens, double queue_len, double kv_use,
                   double imb, const StepLoad& step, const workload::ServingStepBreakdown& step_parts) {
  for (auto part : kBreakdownParts) parts.*part += step_parts.*part;
  load.decode_sequences += step.busiest.decode_sequences;
  load.decode_context_tokens += step.busiest.decode_context_tokens;
  load.prefill_sequences += step.busiest.prefill_sequences;
  load.prefill_tokens += step.busiest.prefill_tokens;
  load.prefill_context_tokens += step.busiest.prefill_context_tokens;
  unit_tokens_sum += double(step.unit_tokens);
  prefill_steps += step.prefill ? 1 : 0;
  mtp_drafts = std::max(mtp_drafts, step.mtp_drafts);
  batch += step_s * batch_per_rank;
  tokens += step_s * unit_tokens;
  queue += step_s * queue_len;
  kv += step_s * kv_use;
  imbalance += imb;
  out.steps += 1;
  out.busy_s += step_s;
  out.max_batch = std::max(out.max_batch, batch_per_rank);
  out.max_queue = std::max(out.max_queue, queue_len);
  out.max_kv_use = std::max(out.max_kv_use, kv_use);
}

UnitSeries StepSums::finish() const {
  UnitSeries s = out;
  if (s.busy_s > 0) {
    s.mean_batch = batch / s.busy_s;
    s.mean_step_tokens = tokens / s.busy_s;
    s.mean_queue = queue / s.busy_s;
    s.mean_kv_use = kv / s.busy_s;
  }
  if (s.steps > 0) {
    s.mean_step_s = s.busy_s / s.steps;
    s.engine_s /= s.steps;
    s.imbalance = imbalance / s.steps;
    auto& m = s.mean_load;
    m.busiest = {load.decode_sequences / s.steps, load.decode_context_tokens / s.steps,
                 load.prefill_sequences / s.steps, load.prefill_tokens / s.steps,
                 load.prefill_context_tokens / s.steps};
    m.unit_tokens = std::llround(unit_tokens_sum / s.steps);
    m.prefill = prefill_steps > 0;
    m.mtp_drafts = mtp_drafts;
    for (auto part : kBreakdownParts) s.mean_parts.*part = parts.*part / s.steps;
  }
  return s;
}

void FleetSeries::account(ServingResult& result, double t, int prefill_in_use, int decode_in_use, int prefill_serving,
                          int decode_serving, long long waiting_first) {
  while (clock_s < t) {
    const double boundary = double(clock_index + 1) * interval_s;
    const double until = std::min(t, boundary);
    const double dt = until - clock_s;
    if (clock_index >= result.intervals.size()) result.intervals.resize(clock_index + 1);
    FleetInterval& f = result.intervals[clock_index];
    f.prefill_unit_s += dt * prefill_in_use;
    f.decode_unit_s += dt * decode_in_use;
    f.prefill_serving_unit_s += dt * prefill_serving;
    f.decode_serving_unit_s += dt * decode_serving;
    f.waiting_s += dt * double(waiting_first);
    f.prefill_peak = std::max(f.prefill_peak, prefill_in_use);
    f.decode_peak = std::max(f.decode_peak, decode_in_use);
    if (t < boundary) {
      clock_s = t;
      break;
    }
    f.waiting_at_end = double(waiting_first);
    clock_s = boundary;
    ++clock_index;
  }
}

std::string FleetSeries::trace_json(const ServingResult& result, bool disaggregated, double until_s) const {
  std::ostringstream o;
  o.precision(9);
  o << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto event = [&](const std::string& name, int pid, long long tid, double from_s, double to_s) {
    if (from_s < 0 || to_s < from_s) return;
    o << (first ? "" : ",\n") << "{\"name\":\"" << name << "\",\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid
      << ",\"ts\":" << from_s * 1e6 << ",\"dur\":" << (to_s - from_s) * 1e6 << "}";
    first = false;
  };
  long long shown = 0;
  for (std::size_t i = 0; i < result.requests.size() && shown < 5000; ++i) {
    const auto& r = result.requests[i];
    if (r.arrival_s >= until_s) break;
    ++shown;
    const long long id = static_cast<long long>(i);
    const double decode_from = disaggregated ? r.transfer_end_s : r.prefill_end_s;
    event("queued", 1, id, r.arrival_s, r.prefill_start_s);
    event("prefill", 1, id, r.prefill_start_s, r.prefill_end_s);
    if (disaggregated) event("KV transfer", 1, id, r.prefill_end_s, r.transfer_end_s);
    event("decode", 1, id, decode_from, r.finish_s);
  }
  for (const auto& counter : counters) {
    o << (first ? "" : ",\n") << "{\"name\":\"unit " << counter.unit
      << "\",\"ph\":\"C\",\"pid\":2,\"ts\":" << counter.t * 1e6 << ",\"args\":{\"batch per rank\":" << counter.batch
      << ",\"queued\":" << counter.queue << ",\"KV use\":" << counter.kv << "}}";
    first = false;
  }
  o << "\n]}\n";
  return o.str();
}

}  // namespace serving
