// serve-plan (serving_run.hpp): what one unit of each kind serves within the SLO, the ratio that
// balances them, the units a load needs, simulated together and added to while they miss it,
// and throughput per GPU against per-user speed over decode batch caps.
#include "studies/serving/serving_run.hpp"

#include <algorithm>
#include <cmath>

#include "serving/gpu_memory.hpp"

namespace studies::serving_study {

ServingStudy::UnitRates ServingStudy::unit_rates(const serving::ServingConfig& c) const {
  UnitRates u;
  serving::ServingConfig one_decode = c;
  one_decode.decode_units = 1;
  if (!disaggregated) {
    const Found f = find_max_rate(one_decode);
    u.any = f.any;
    u.decode = f.rate_per_s;
    u.miss = "unit";
    return u;
  }
  serving::ServingConfig one_prefill = c;
  one_prefill.prefill_units = 1;
  one_prefill.decode_units = 0;
  one_prefill.decode_unbounded = true;
  one_decode.prefill_units = 0;
  one_decode.prefill_unbounded = true;
  const Found p = find_max_rate(one_prefill), d = find_max_rate(one_decode);
  u.any = p.any && d.any;
  u.prefill = p.rate_per_s;
  u.decode = d.rate_per_s;
  u.miss = !p.any ? "prefill unit" : "decode unit";
  return u;
}

ServingStudy::Together ServingStudy::fit_together(const serving::ServingConfig& c, const UnitRates& rates, double load,
                                                  const std::string& pointer) const {
  Together t;
  t.config = c;
  if (disaggregated) t.config.prefill_units = units_for(load, rates.prefill, prefill, pointer);
  t.config.decode_units = units_for(load, rates.decode, decode, pointer);
  t.first_prefill = t.config.prefill_units;
  t.first_decode = t.config.decode_units;
  serving::ServingResult at_load = simulate(t.config, load / base_rate());
  t.metrics = serving::serving_metrics(at_load, t.config, slo);
  for (int tries = 0; tries < kMaxPlanAdditions && !meets(at_load, t.metrics); ++tries) {
    if (!disaggregated || serving::decode_binds(at_load, t.metrics, slo))
      t.config.decode_units = units_for(load, load / (t.config.decode_units + 1), decode, pointer);
    else
      t.config.prefill_units = units_for(load, load / (t.config.prefill_units + 1), prefill, pointer);
    at_load = simulate(t.config, load / base_rate());
    t.metrics = serving::serving_metrics(at_load, t.config, slo);
  }
  t.met = meets(at_load, t.metrics);
  return t;
}

std::string ServingStudy::additions_note(const Together& t) const {
  const int added = t.added();
  const std::string more = !t.met ? std::to_string(added) + " more did not meet it: the SLO is not met at this load"
                           : added == 1 ? "one more was needed"
                                        : std::to_string(added) + " more were needed";
  return "each kind's rate alone asked for " +
         (disaggregated ? std::to_string(t.first_prefill) + " prefill and " : std::string()) +
         std::to_string(t.first_decode) + (disaggregated ? " decode" : "") +
         " units; together they missed the SLO, and " + more +
         " (each added to the phase that binds: decode where TPOT misses or requests wait longer for decode than for prefill).";
}

void ServingStudy::plan_rows(StudyResult& r, const serving::ServingConfig& c) const {
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({"plan/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
  };
  const double load = plan_rate > 0 ? plan_rate : base_rate();
  serving::ServingConfig one_decode = c;  // decode alone: one unit, prompts prefilled at once
  one_decode.decode_units = 1;
  if (disaggregated) {
    one_decode.prefill_units = 0;
    one_decode.prefill_unbounded = true;
  }
  const UnitRates rates = unit_rates(c);
  if (!rates.any) {
    r.notes.push_back("Plan: no load meets the SLO on one " + rates.miss +
                      (disaggregated ? " even with the other phase unlimited." : "."));
    return;
  }
  const double prefill_rate = rates.prefill;  // what one prefill unit serves (disaggregated)
  if (disaggregated) {
    row("prefill_unit_rate", "one prefill unit: requests/s within the TTFT SLO (decode unlimited)", "req/s",
        rates.prefill);
    row("decode_unit_rate", "one decode unit: requests/s within the SLO (prefill unlimited)", "req/s", rates.decode);
    row("prefill_per_decode", "prefill units per decode unit that balance them", "units", rates.decode / rates.prefill);
    row("prefill_to_decode_nodes", "prefill nodes per decode node that balance them", "nodes",
        rates.decode / rates.prefill * prefill.nodes / decode.nodes);
  } else {
    row("unit_rate", "one unit: requests/s within the SLO", "req/s", rates.decode);
  }
  const Together t = fit_together(c, rates, load, plan_rate > 0 ? "/plan/rate_per_s" : "");
  const serving::ServingConfig& planned = t.config;
  const auto& m = t.metrics;
  const bool met = t.met;
  const std::string for_load =
      "for " + format_number(load) + " req/s" +
      (met ? "" : " (SLO not met: still missed after " + std::to_string(kMaxPlanAdditions) + " units added)") + ": ";
  if (disaggregated) row("prefill_units", for_load + "prefill units", "units", planned.prefill_units);
  row("decode_units", for_load + (disaggregated ? "decode units" : "units"), "units", planned.decode_units);
  row("nodes", for_load + "nodes", "nodes", gpus_of(planned) / node_gpus());
  row("ttft_p90", for_load + "TTFT p90, all units simulated together", "s", m.ttft_s.p90);
  row("tpot_p90", for_load + "TPOT p90, all units simulated together", "ms", m.tpot_s.p90 * 1e3);
  row("meets_slo", for_load + "the SLO met (1) or not (0), all units simulated together", "", met ? 1.0 : 0.0);
  if (t.added() > 0) r.notes.push_back("Plan: " + additions_note(t));

  // Throughput against per-user speed: one decode unit kept full (arrivals beyond what it
  // serves, prompts prefilled at once when disaggregated) at each cap of sequences per DP rank.
  for (int cap : plan_caps) {
    serving::ServingConfig cc = one_decode;
    cc.decode.max_running = cap;
    if (disaggregated) {  // a decode step's activations grow with the cap
      serving::MemoryInput in = decode.memory_input;
      in.max_step_tokens = cap * (1 + c.mtp_drafts);
      cc.decode.memory = serving::plan_memory(*model, *cluster.gpu, decode.config.deployment, in);
    } else {
      cc.prefill = cc.decode;
    }
    cc.drain_limit_s = cc.duration_s;  // the queue is left, not drained
    const double ranks = cc.decode.ranks();
    double scale = 1;
    serving::ServingResult res;
    for (int tries = 0; tries < 8; ++tries) {
      res = simulate(cc, scale);
      if (res.decode.mean_batch >= 0.9 * cap || res.decode.mean_queue >= ranks) break;
      if (expected_requests(2 * scale) > double(requests::kMaxRequests)) break;
      scale *= 2;
    }
    const auto cm = serving::serving_metrics(res, cc, slo);
    // Per-user speed from the requests decoded in the window, whenever they arrived: a full
    // unit's queue holds back the requests that arrive in it.
    std::vector<double> user;
    for (const auto& q : res.requests)
      if (q.first_token_s >= cc.warmup_s && q.finish_s > q.first_token_s && q.finish_s <= cc.duration_s)
        user.push_back((q.output_tokens - 1) / (q.finish_s - q.first_token_s));
    const double user_p50 = serving::percentile(user, 50);
    const double decode_gpus = double(decode.nodes) * node_gpus();
    // Disaggregated: the prefill GPUs that would keep up with this decode unit counted too.
    const double prefill_gpus =
        disaggregated ? finished_per_s(res, cc) / prefill_rate * prefill.nodes * node_gpus() : 0.0;
    const std::string at = "batch cap " + std::to_string(cap) + ": ";
    row("cap_" + std::to_string(cap) + "/user_tokens_per_s", at + "tokens/s per user, p50", "tokens/s", user_p50);
    row("cap_" + std::to_string(cap) + "/output_per_gpu",
        at + "output tokens/s per GPU" + (disaggregated ? " (with the prefill GPUs that keep up)" : ""), "tokens/s",
        cm.output_tokens_per_s / (decode_gpus + prefill_gpus));
    row("cap_" + std::to_string(cap) + "/batch", at + "sequences per DP rank (mean)", "seqs", res.decode.mean_batch);
    // The same breakdown as the run's: a decode step at this cap's mean load.
    if (res.decode.steps > 0) {
      const auto b = workload::step_breakdown(cc.decode.cost->step(res.decode.mean_load));
      row("cap_" + std::to_string(cap) + "/step", at + "decode step at its mean load", "ms", b.step_s * 1e3);
      row("cap_" + std::to_string(cap) + "/attention", at + "of which attention", "ms", b.attention_s * 1e3);
      row("cap_" + std::to_string(cap) + "/ffn",
          at + (model->moe ? "of which experts, gate and dense FFNs" : "of which FFNs"), "ms",
          (b.routed_experts_s + b.shared_expert_s + b.gate_s + b.dense_ffn_s) * 1e3);
      row("cap_" + std::to_string(cap) + "/exposed_comm", at + "of which communication exposed", "ms",
          b.exposed_comm_s * 1e3);
    }
  }
  r.notes.push_back(
      "Plan: each unit's rate is the highest whose TTFT p90 and TPOT p90 meet the SLO with the other phase unlimited (prompts "
      "prefilled the moment they arrive, or requests done once their KV cache leaves prefill); the units a load needs are "
      "each kind's rate divided into it, rounded up, then simulated together. The throughput curve keeps one decode unit "
      "full (arrivals doubled until its DP ranks reach 90% of the cap or queue) for " +
      format_number(config.duration_s) + " s at each cap.");
}

int ServingStudy::units_for(double load, double unit_rate, const UnitSpec& u, const std::string& pointer) const {
  const double units = std::ceil(load / unit_rate - 1e-9);
  check_rank_count(pointer.empty() ? u.pointer + "/units" : pointer,
                   format_number(load) + " req/s at " + format_number(unit_rate) + " req/s a unit (" +
                       short_number(units) + " units of " + std::to_string(u.config.ranks()) + " DP ranks)",
                   units * u.config.ranks());
  return static_cast<int>(units);
}

double ServingStudy::finished_per_s(const serving::ServingResult& res, const serving::ServingConfig& c) {
  long long done = 0;
  for (const auto& q : res.requests)
    if (q.finish_s >= c.warmup_s && q.finish_s <= c.duration_s) ++done;
  return double(done) / (c.duration_s - c.warmup_s);
}

}  // namespace studies::serving_study
