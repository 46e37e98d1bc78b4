// The serving report's rows (serving_run.hpp): requests/s, tokens/s per node, GPU and user, TTFT,
// TPOT, end-to-end and inter-token latency percentiles, batch, queue and KV use; where a typical
// step's time goes; a concurrency sweep's levels; the throughput mode; the engine's CPU work and
// request path; and each request's times as a CSV file.
#include "studies/serving/serving_run.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "studies/config/output_file.hpp"

namespace studies::serving_study {

void ServingStudy::breakdown_rows(StudyResult& r, const serving::ServingResult* result, serving::StepCost* prefill_cost,
                                  serving::StepCost* decode_cost,
                                  std::vector<std::pair<std::string, workload::ServingStep>>* steps) const {
  std::string loads;
  for (const bool prefill_phase : {true, false}) {
    if (prefill_phase && !disaggregated) continue;
    const std::string phase = !disaggregated ? "step" : prefill_phase ? "prefill" : "decode";
    const serving::UnitSeries* series = result ? (prefill_phase ? &result->prefill : &result->decode) : nullptr;
    workload::ServingStepBreakdown b;
    double expert_imbalance = 0;
    if (series && series->steps > 0) {
      const serving::StepLoad& load = series->mean_load;
      const workload::ServingStep step = (prefill_phase ? prefill_cost : decode_cost)->step(load);
      // The steps' own parts averaged (a step at the mean load would miss a mix of decode-only
      // steps and steps with a prompt, each bound by a different part of the GPU).
      b = series->mean_parts;
      expert_imbalance = step.expert_imbalance;
      if (steps) steps->emplace_back("typical " + phase + " step: its stages", step);
      const auto& g = load.busiest;
      loads += " " + phase + ": " + format_number(g.decode_sequences) + " sequences decoding at " +
               format_number(g.decode_context_tokens) + " tokens of context, " + format_number(g.prefill_sequences) +
               " prompts of " + format_number(g.prefill_tokens) + " new tokens after " +
               format_number(g.prefill_context_tokens) + ", the unit's new tokens " + std::to_string(load.unit_tokens) +
               (load.mtp_drafts > 0 ? ", " + std::to_string(load.mtp_drafts) + " MTP drafts verified" : "") + ";";
    }
    const std::string label =
        label_ + ": " + (disaggregated ? phase + " step" : std::string("step")) + ", the measured steps' mean";
    auto row = [&](const std::string& id, const std::string& metric, double s) {
      r.rows.push_back({"breakdown/" + phase + "/" + id, label, metric, "ms", {}, s * 1e3, Basis::kSimulated});
    };
    row("attention", "attention, all layers and micro-batches", b.attention_s);
    if (model->moe) {
      row("routed_experts", "routed experts", b.routed_experts_s);
      row("shared_expert", "shared expert (on this GPU)", b.shared_expert_s);
      row("gate", "gate", b.gate_s);
    }
    if (model->moe_layer_count() < model->layers) row("dense_ffn", "dense layers' FFN", b.dense_ffn_s);
    row("memory_kernels", "of the above: memory-bound kernels", b.memory_kernels_s);
    if ((prefill_phase ? config.prefill : config.decode).deployment.attention_tp > 1)
      row("tp_comm", "of the above: TP all-gathers and reduce-scatters (NVLink)", b.tp_comm_s);
    if (config.mtp_drafts > 0 && !prefill_phase) row("mtp", "of the above: the MTP module's layer", b.mtp_s);
    row("head", "final norm and LM head", b.head_s);
    if (model->moe) {
      row("dispatch", "dispatch, hidden or not", b.dispatch_s);
      row("combine", "combine, hidden or not", b.combine_s);
    }
    row("exposed_comm", "communication exposed (the step beyond its compute)", b.exposed_comm_s);
    if (b.pipeline_s > 0)
      row("pipeline", "of the above: pipeline stages' hand-offs and the wait for the largest stage", b.pipeline_s);
    row("step", "the step", b.step_s);
    if (model->moe)
      r.rows.push_back({"breakdown/" + phase + "/expert_imbalance",
                        label,
                        "busiest expert GPU's routed tokens / the mean",
                        "x",
                        {},
                        expert_imbalance,
                        Basis::kSimulated});
  }
  if (!loads.empty())
    r.notes.push_back(
        "Step breakdown: each measured step's parts (its gating DP rank's load) averaged over the steps, on the GPU (the engine's CPU "
        "work is in the engine rows); the mean load (the trace's typical step):" +
        loads +
        " compute at the rate it runs beside communication, summed over layers and micro-batches; the compute, the head and "
        "the exposed communication add up to the step.");
}

void ServingStudy::write_requests_csv(const std::string& path, const serving::ServingResult& result) {
  std::string out =
      "request,arrival_s,input_tokens,output_tokens,cached_tokens,scheduling_delay_s,prefill_end_s,kv_transfer_end_s,first_token_s,finish_s,"
      "ttft_s,tpot_s,e2e_s,preemptions,measured\n";
  auto time = [](double t) { return t < 0 ? std::string() : format_number(t); };
  for (std::size_t i = 0; i < result.requests.size(); ++i) {
    const auto& q = result.requests[i];
    const bool done = q.finish_s >= 0;
    out += std::to_string(i) + "," + format_number(q.arrival_s) + "," + std::to_string(q.input_tokens) + "," +
           std::to_string(q.output_tokens) + "," + std::to_string(q.cached_tokens) + "," +
           (q.prefill_start_s < 0 ? std::string() : format_number(q.prefill_start_s - q.arrival_s)) + "," +
           time(q.prefill_end_s) + "," + time(q.transfer_end_s) + "," + time(q.first_token_s) + "," + time(q.finish_s) +
           "," + (q.first_token_s < 0 ? std::string() : format_number(q.first_token_s - q.arrival_s)) + "," +
           (done && q.output_tokens > 1 ? format_number((q.finish_s - q.first_token_s) / (q.output_tokens - 1))
                                        : std::string()) +
           "," + (done ? format_number(q.finish_s - q.arrival_s) : std::string()) + "," +
           std::to_string(q.preemptions) + "," + (q.in_window ? "1" : "0") + "\n";
  }
  write_file_atomically(path, out);
}

void ServingStudy::client_rows(StudyResult& r, const serving::ServingConfig& c, int level,
                               const serving::ServingResult* run) const {
  const serving::ServingResult result = run ? *run : simulate(c, 1.0, nullptr, level);
  const auto m = serving::serving_metrics(result, c, slo);
  const std::string prefix = "clients_" + std::to_string(level) + "/";
  const std::string at = std::to_string(level) + " clients: ";
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({prefix + id, label_, at + metric, unit, {}, v, Basis::kSimulated});
  };
  row("requests_per_s", "requests/s finished", "req/s", double(m.finished) / (c.duration_s - c.warmup_s));
  row("output_per_gpu", "output tokens/s per GPU", "tokens/s", m.output_tokens_per_s / gpus_of(c));
  row("user_tokens_per_s", "tokens/s per user, mean", "tokens/s", m.user_tokens_per_s.mean);
  for (const auto& [name, p, scale, unit] :
       {std::tuple{"ttft", &m.ttft_s, 1e3, "ms"}, std::tuple{"tpot", &m.tpot_s, 1e3, "ms"},
        std::tuple{"e2e", &m.e2e_s, 1.0, "s"}}) {
    const std::string upper = std::string(name) == "e2e"    ? "end-to-end latency"
                              : std::string(name) == "ttft" ? "TTFT"
                                                            : "TPOT";
    row(std::string(name) + "_mean", upper + " mean", unit, p->mean * scale);
    row(std::string(name) + "_p50", upper + " p50", unit, p->p50 * scale);
    row(std::string(name) + "_p90", upper + " p90", unit, p->p90 * scale);
    row(std::string(name) + "_p99", upper + " p99", unit, p->p99 * scale);
  }
}

void ServingStudy::throughput_mode_rows(StudyResult& r, const serving::ServingResult& result,
                                        const serving::ServingConfig& c) const {
  double makespan_s = 0, output_tokens = 0;
  long long done = 0;
  for (const auto& q : result.requests)
    if (q.finish_s >= 0) {
      makespan_s = std::max(makespan_s, q.finish_s);
      output_tokens += q.output_tokens;
      ++done;
    }
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({"throughput_mode/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
  };
  row("finished", "requests finished (all sent at 0 s)", "count", double(done));
  row("makespan", "from 0 s to the last request's end", "s", makespan_s);
  row("requests_per_s", "requests/s over that time", "req/s", makespan_s > 0 ? done / makespan_s : 0.0);
  row("output_per_gpu", "output tokens/s per GPU over that time", "tokens/s",
      makespan_s > 0 ? output_tokens / makespan_s / gpus_of(c) : 0.0);
}

void ServingStudy::engine_rows(StudyResult& r, const serving::ServingResult& result, const serving::EngineProfile& e,
                               double window_s) const {
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({"engine/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
  };
  if (disaggregated)
    row("prefill_step_cpu", "prefill step: the engine's CPU work it waited for (mean)", "ms",
        result.prefill.engine_s * 1e3);
  row(disaggregated ? "decode_step_cpu" : "step_cpu",
      std::string(disaggregated ? "decode step" : "step") + ": the engine's CPU work it waited for (mean)", "ms",
      result.decode.engine_s * 1e3);
  row("ttft_path", "TTFT: the request's way in (HTTP, tokenizer, its queue) and its first token's way out (mean)", "ms",
      (result.way_in_s > 0 ? result.way_in_s : e.frontend_s) * 1e3 + e.emit_s * 1e3);
  // The front end's one process: its prompts' tokenizing and its streamed tokens' output work
  // over the measured window (above 1: it could not keep up; the run does not queue the tokens).
  if (window_s > 0 && e.stream_s_per_token + e.tokenize_s_per_token > 0) {
    double input = 0, output = 0;
    for (const auto& q : result.requests)
      if (q.in_window) {
        input += q.input_tokens;
        output += q.output_tokens;
      }
    row("front_end_busy", "the front end's process: tokenizing and streaming, share of the window", "%",
        100 * (input * e.tokenize_s_per_token + output * e.stream_s_per_token) / window_s);
  }
  std::string parts;
  for (const auto& [name, part] : {std::pair{"schedule", e.schedule}, std::pair{"prepare", e.prepare},
                                   std::pair{"sample", e.sample}, std::pair{"outputs", e.outputs}})
    if (part.fixed_s > 0 || part.per_sequence_s > 0)
      parts += std::string(parts.empty() ? "" : ", ") + name + " " + format_number(part.fixed_s * 1e3) + " ms + " +
               format_number(part.per_sequence_s * 1e6) + " us";
  r.notes.push_back(
      "Engine " + e.name + (e.version.empty() ? "" : " " + e.version) + ": " + format_number(e.step_cpu_s * 1e3) +
      " ms + " + format_number(e.step_cpu_per_sequence_s * 1e6) + " us a sequence of CPU work a step (" + parts + ")" +
      (e.worker_dispatch_s > 0 ? " and " + format_number(e.worker_dispatch_s * 1e3) +
                                     " ms to hand each step to its workers where it drives several GPUs"
                               : std::string()) +
      ", " +
      (e.overlap_scheduling ? "overlapped with the GPU's step (a step takes the longer of the two, and " +
                                  format_number(e.overlap_exposed_s * 1e3) + " ms more it still waits for" +
                                  (e.tokens_a_step_later ? "; its tokens reach the client after the next step)" : ")")
                            : std::string("between GPU steps (added to each)")) +
      "; " + format_number(e.frontend_s * 1e3) + " ms and " + format_number(e.tokenize_s_per_token * 1e6) +
      " us a prompt token on the front end's one process before a request reaches the engine, " +
      format_number(e.stream_s_per_token * 1e6) + " us of its work a streamed token, and " +
      format_number(e.emit_s * 1e3) +
      " ms from a step's end to the client holding its token (data/engines, each figure with its source).");
}

void ServingStudy::ttft_rows(StudyResult& r, const serving::ServingResult& result,
                             const serving::ServingConfig& c) const {
  double queued = 0, prefill = 0, transfer = 0, first = 0, ttft = 0;
  long long n = 0;
  for (const auto& q : result.requests) {
    if (!q.in_window || q.first_token_s < 0 || q.prefill_start_s < 0 || q.prefill_end_s < 0) continue;
    const double ready_s = q.transfer_end_s >= 0 ? q.transfer_end_s : q.prefill_end_s;
    queued += q.prefill_start_s - q.arrival_s;
    prefill += q.prefill_end_s - q.prefill_start_s;
    transfer += ready_s - q.prefill_end_s;
    first += q.first_token_s - c.engine.emit_s - ready_s;
    ttft += q.first_token_s - q.arrival_s;
    ++n;
  }
  if (n == 0) return;  // (streamed records, or no measured first token)
  const double k = 1e3 / double(n);
  const serving::UnitSeries& computes = disaggregated ? result.prefill : result.decode;
  const double cpu_share = computes.mean_step_s > 0 ? computes.engine_s / computes.mean_step_s : 0.0;
  const std::string label = label_ + ": TTFT, mean";
  auto row = [&](const std::string& id, const std::string& metric, double ms) {
    r.rows.push_back({"ttft/" + id, label, metric, "ms", {}, ms, Basis::kSimulated});
  };
  row("front_end", "the engine's front end (HTTP, tokenizer, its queue)", result.way_in_s * 1e3);
  row("queueing", "waiting for a prefill rank",
      std::max(0.0, queued * k - result.way_in_s * 1e3));  // (a rounding's negative zero)
  row("prefill", "the prompt's steps", prefill * k);
  row("engine_cpu", "of the above: the engine's CPU work the steps waited for", prefill * k * cpu_share);
  if (disaggregated) row("kv_transfer", "the KV cache's transfer to decode and the wait for its pages", transfer * k);
  row("first_decode",
      disaggregated ? "the first decode step (and the wait for it)"
                    : "the token's wait for the next step (an overlapping engine's)",
      first * k);
  row("emission", "the token's way out to the client", c.engine.emit_s * 1e3);
  row("ttft", "TTFT", ttft * k);
}

void ServingStudy::add_rows(StudyResult& r, const std::string& prefix, const serving::ServingMetrics& m,
                            const serving::ServingResult& result) const {
  const std::string& label = label_;
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({prefix + id, label, metric, unit, {}, v, Basis::kSimulated});
  };
  const double gpn = node_gpus();
  const double prefill_nodes =
      disaggregated ? double(prefill.units) * prefill.nodes : double(decode.units) * decode.nodes;
  const double decode_nodes = double(decode.units) * decode.nodes;
  row("requests_per_s", "requests/s arriving", "req/s", m.request_rate_per_s);
  row("input_per_prefill_node",
      std::string(disaggregated ? "input tokens/s per prefill node" : "input tokens/s per node") +
          " (cache hits included)",
      "tokens/s", m.input_tokens_per_s / prefill_nodes);
  row("computed_input_per_prefill_node",
      std::string(disaggregated ? "input tokens/s per prefill node" : "input tokens/s per node") +
          " computed (hits excluded)",
      "tokens/s", m.computed_input_tokens_per_s / prefill_nodes);
  row("output_per_decode_node", disaggregated ? "output tokens/s per decode node" : "output tokens/s per node",
      "tokens/s", m.output_tokens_per_s / decode_nodes);
  row("output_per_gpu", "output tokens/s per GPU (all GPUs)", "tokens/s",
      m.output_tokens_per_s / ((prefill_nodes * (disaggregated ? 1 : 0) + decode_nodes) * gpn));
  row("user_tokens_per_s_p50",
      "tokens/s per user, p50" + std::string(std::isnan(m.user_tokens_per_s.p50)
                                                 ? " (not defined: no measured request finished its answer)"
                                                 : ""),
      "tokens/s", m.user_tokens_per_s.p50);
  // Unfinished requests count by their age when the run stopped: the figures are lower bounds.
  const std::string bound = m.unfinished > 0 ? " (at least: " + std::to_string(m.unfinished) +
                                                   " unfinished requests counted by their age at " +
                                                   format_number(m.stopped_s) + " s)"
                                             : "";
  for (const auto& [name, p, scale, unit] :
       {std::tuple{"ttft", &m.ttft_s, 1.0, "s"}, std::tuple{"tpot", &m.tpot_s, 1e3, "ms"},
        std::tuple{"e2e", &m.e2e_s, 1.0, "s"}}) {
    const std::string upper = std::string(name) == "e2e"    ? "end-to-end latency"
                              : std::string(name) == "ttft" ? "TTFT"
                                                            : "TPOT";
    const std::string defined = std::isnan(p->p50) ? " (not defined: no measured request has one)" : bound;
    row(std::string(name) + "_p50", upper + " p50" + defined, unit, p->p50 * scale);
    row(std::string(name) + "_p90", upper + " p90" + defined, unit, p->p90 * scale);
    row(std::string(name) + "_p99", upper + " p99" + defined, unit, p->p99 * scale);
  }
  // Inter-token latency per streamed chunk, step by step: a decode token that waited behind a
  // long prefill chunk shows here, where TPOT spreads it over its request.
  const serving::PercentileSketch& itl = result.inter_token_s;
  const std::string itl_defined =
      itl.count() == 0 ? " (not defined: no measured step gave a sequence a token after its first)" : "";
  for (int p : {50, 90, 99})
    row("itl_p" + std::to_string(p), "inter-token latency p" + std::to_string(p) + ", per streamed chunk" + itl_defined,
        "ms", itl.percentile(p) * 1e3);
  row("decode_batch",
      disaggregated ? "decode sequences per DP rank (mean over steps)" : "sequences per DP rank and step (mean)",
      "seqs", result.decode.mean_batch);
  row("decode_step", disaggregated ? "decode step (mean)" : "step (mean)", "ms", result.decode.mean_step_s * 1e3);
  row("decode_rank_imbalance", "the gating DP rank's new tokens / the mean (decode steps)", "x",
      result.decode.imbalance);
  row("kv_use_max", "KV pages in use, busiest rank, max", "%", 100 * result.decode.max_kv_use);
  row("queue_mean", "requests waiting (mean over steps)", "reqs", result.decode.mean_queue + result.prefill.mean_queue);
  row("preemptions", "preemptions", "count", double(result.preemptions));
  row("finished", "measured requests finished", "%",
      m.measured > 0 ? 100.0 * double(m.finished) / double(m.measured) : 0.0);
  row("unfinished", "measured requests unfinished when the run stopped", "count", double(m.unfinished));
  row("backlog_growth", "requests waiting for a first token: growth over the window's second half", "req/s",
      m.offered_per_s - m.served_per_s);
  row("overloaded", "arrivals exceed what the deployment serves (1) or not (0)", "", m.overloaded ? 1.0 : 0.0);
}

}  // namespace studies::serving_study
