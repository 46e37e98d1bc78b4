// A fleet over time (serving_run.hpp): its records streamed into per-interval tallies on a second
// core, the day's totals, nodes in use and saved against a fleet sized for the peak, tokens, cost
// and revenue, the fleet by the hour, and its series as CSV.
#include "studies/serving/serving_run.hpp"

#include <algorithm>
#include <cmath>

#include "core/batch_channel.hpp"
#include "core/progress_bar.hpp"
#include "requests/generated_source.hpp"
#include "requests/listed_source.hpp"
#include "requests/prefetched_source.hpp"
#include "studies/serving/hour_rows.hpp"

namespace studies::serving_study {

void ServingStudy::fleet_run(StudyResult& r, const serving::ServingConfig& c, serving::StepCost& prefill_cost,
                             serving::StepCost& decode_cost) const {
  serving::RequestSeries series(c.interval_s, slo);
  // Done as the share of the load arrived, not of the time passed: under a load profile the
  // busy hours cost most (a day's estimate from its quiet night had been half the run).
  const requests::LoadProfile* profile =
      generated && !generated->arrivals.profile.empty() ? &generated->arrivals.profile : nullptr;
  const auto done_at = [&](double t) {
    return profile ? profile->expected(0, std::min(t, c.duration_s)) : std::min(t, c.duration_s);
  };
  core::ProgressBar bar("serving", done_at(c.duration_s));
  const auto update = [&](double t) { bar.update(done_at(t)); };
  // The requests are drawn, and their records summed, on the second core: the simulation
  // reads neither (an open-loop source; the sums are read once it has run).
  core::BackgroundSink<serving::RequestRecord> records([&](const serving::RequestRecord& q) { series.add(q); });
  const auto record = [&](const serving::RequestRecord& q) { records.push(q); };
  serving::ServingResult result;
  if (generated) {
    requests::GeneratedSource drawn(*generated);
    requests::PrefetchedSource source(drawn);
    result = serving::simulate_serving(source, c, update, record);
  } else {
    requests::ListedSource source(trace);
    result = serving::simulate_serving(source, c, update, record);
  }
  records.close();
  series.finish(result.end_s);
  const auto m = serving::streamed_metrics(series, result, c);
  add_rows(r, "", m, result);
  breakdown_rows(r, &result, &prefill_cost, &decode_cost);
  if (slo.ttft_s > 0 || slo.tpot_s > 0) {
    r.rows.push_back({"slo/goodput",
                      label_,
                      "goodput: requests/s within the SLO",
                      "req/s",
                      {},
                      m.goodput_requests_per_s,
                      Basis::kSimulated});
    r.rows.push_back(
        {"slo/attainment", label_, "requests within the SLO", "%", {}, 100 * m.slo_attainment, Basis::kSimulated});
  }
  fleet_rows(r, c, result, series);
  r.notes.push_back(deployment_note());
  r.notes.push_back(workload_note(std::size_t(result.arrived)) + " Measured: the " + std::to_string(m.measured) +
                    " requests arriving from " + format_number(c.warmup_s) + " s to " + format_number(c.duration_s) +
                    " s (" + std::to_string(m.finished) + " finished" +
                    (result.unfinished > 0
                         ? "; " + std::to_string(result.unfinished) + " unfinished when the run stopped at " +
                               format_number(result.end_s) + " s"
                         : "") +
                    "). Percentiles from sketches within 0.5% of the value (the records are streamed, not kept).");
  r.notes.push_back(step_times_note(prefill_cost, decode_cost));
}

bool ServingStudy::kept(const serving::RequestTally& t) const {
  if (t.arrived == 0) return true;
  return (slo.ttft_s <= 0 || t.ttft_s.percentile(90) <= slo.ttft_s) &&
         (slo.tpot_s <= 0 || !(t.tpot_s.percentile(90) > slo.tpot_s));
}

void ServingStudy::fleet_rows(StudyResult& r, const serving::ServingConfig& c, const serving::ServingResult& res,
                              const serving::RequestSeries& series) const {
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({id, label_, metric, unit, {}, v, Basis::kSimulated});
  };
  const double gpn = node_gpus();
  const double pn = disaggregated ? prefill.nodes : 0.0, dn = decode.nodes;
  const double hours = c.duration_s / 3600;
  const auto& iv = res.intervals;
  const auto& rq = series.intervals();
  // The run's intervals (the drain after it is not the day's).
  const std::size_t n = std::min(iv.size(), static_cast<std::size_t>(std::ceil(c.duration_s / c.interval_s - 1e-9)));
  double prefill_node_s = 0, decode_node_s = 0, peak_nodes = 0, input = 0, computed = 0, output = 0;
  long long kept_count = 0, loaded = 0;
  for (std::size_t i = 0; i < iv.size(); ++i) {
    input += iv[i].input_tokens;
    computed += iv[i].computed_input_tokens;
    output += iv[i].output_tokens;
    if (i >= n) continue;
    prefill_node_s += iv[i].prefill_unit_s * pn;
    decode_node_s += iv[i].decode_unit_s * dn;
    peak_nodes = std::max(peak_nodes, iv[i].prefill_peak * pn + iv[i].decode_peak * dn);
    if (i < rq.size() && rq[i].arrived > 0) {
      ++loaded;
      kept_count += kept(rq[i]);
    }
  }
  const double node_s = prefill_node_s + decode_node_s;
  const double fleet_nodes = double(config.prefill_units) * pn + double(config.decode_units) * dn;
  row("fleet/avg_nodes", "nodes in use, mean over the run", "nodes", node_s / c.duration_s);
  row("fleet/peak_nodes", "nodes in use, most at once", "nodes", peak_nodes);
  row("fleet/node_hours", "node-hours used", "node-h", node_s / 3600);
  row("fleet/peak_sized_node_hours", "node-hours of a fixed fleet sized for the peak", "node-h", peak_nodes * hours);
  row("fleet/saved_vs_peak", "node-hours saved against the fleet sized for the peak", "%",
      peak_nodes > 0 ? 100 * (1 - node_s / 3600 / (peak_nodes * hours)) : 0.0);
  row("fleet/gpu_hours_used", "GPU-hours used", "GPU-h", node_s * gpn / 3600);
  row("fleet/gpu_hours_freed",
      "GPU-hours freed (the whole fleet of " + format_number(fleet_nodes) + " nodes, less those used)", "GPU-h",
      fleet_nodes * gpn * hours - node_s * gpn / 3600);
  row("fleet/scale_ups", "units started (or drains called back)", "count", res.scale_ups);
  row("fleet/scale_downs", "units drained (or starts called off)", "count", res.scale_downs);
  row("fleet/input_tokens", "input tokens (cache hits included)", "billion", input / 1e9);
  row("fleet/cached_input_share", "input tokens from the prefix cache", "%",
      input > 0 ? 100 * (1 - computed / input) : 0.0);
  row("fleet/output_tokens", "output tokens", "billion", output / 1e9);
  row("slo/intervals_kept", "intervals whose TTFT p90 and TPOT p90 kept the SLO (of those with arrivals)", "%",
      loaded > 0 ? 100.0 * double(kept_count) / double(loaded) : 0.0);
  if (usd_per_gpu_hour > 0) {
    const double usd = node_s * gpn / 3600 * usd_per_gpu_hour;
    row("cost/usd", "the run's GPU cost at " + format_number(usd_per_gpu_hour) + " $/GPU-hour", "$", usd);
    row("cost/per_million_tokens", "cost per million tokens, input and output", "$", usd / ((input + output) / 1e6));
    if (disaggregated) {
      row("cost/per_million_input", "cost per million input tokens (the prefill nodes' share)", "$",
          prefill_node_s * gpn / 3600 * usd_per_gpu_hour / (input / 1e6));
      row("cost/per_million_output", "cost per million output tokens (the decode nodes' share)", "$",
          decode_node_s * gpn / 3600 * usd_per_gpu_hour / (output / 1e6));
    }
    if (priced) {
      const double revenue = ((input - computed) * usd_per_million_hit + computed * usd_per_million_miss +
                              output * usd_per_million_output) /
                             1e6;
      row("cost/revenue", "revenue at the price list, every token charged", "$", revenue);
      if (revenue > 0)
        row("cost/margin", "revenue less GPU cost, of the revenue", "%", 100 * (revenue - usd) / revenue);
      else
        r.notes.push_back(
            "No revenue at the price list (every price 0, or no token served): the margin is undefined and not reported.");
    }
  }
  hour_rows(row, n, c.interval_s, hours, "nodes in use (mean)", "requests/s arriving", [&](std::size_t i) {
    return std::pair{iv[i].prefill_unit_s * pn + iv[i].decode_unit_s * dn, double(iv[i].arrivals)};
  });
  r.series_csv = fleet_csv(c, res, series);
  r.notes.push_back(
      "Fleet: units in use are serving, starting or draining (their GPUs are taken); the peak is the most nodes in use at once within an "
      "interval; the fleet sized for the peak holds that many nodes for the whole run. GPU-hours and cost over the " +
      format_number(hours) + " h of arrivals; tokens include the drain after it." +
      (disaggregated ? " Input tokens carry the prefill nodes' cost, output tokens the decode nodes'." : ""));
}

std::string ServingStudy::fleet_csv(const serving::ServingConfig& c, const serving::ServingResult& res,
                                    const serving::RequestSeries& series) const {
  const double pn = disaggregated ? prefill.nodes : 0.0, dn = decode.nodes;
  std::string out =
      "start_h,end_h,arrivals_per_s,prefill_units,decode_units,nodes,prefill_utilisation,decode_utilisation,waiting_mean,"
      "ttft_p50_s,ttft_p90_s,ttft_p99_s,tpot_p50_ms,tpot_p90_ms,tpot_p99_ms,slo_attainment,slo_kept,input_tokens_per_s,output_tokens_per_s\n";
  const auto& iv = res.intervals;
  const auto& rq = series.intervals();
  auto num = [](double x) { return std::isfinite(x) ? format_number(x) : std::string(); };
  for (std::size_t i = 0; i < iv.size() && double(i) * c.interval_s < c.duration_s; ++i) {
    const auto& f = iv[i];
    const double span = c.interval_s;
    const serving::RequestTally empty;
    const serving::RequestTally& t = i < rq.size() ? rq[i] : empty;
    out += num(double(i) * span / 3600) + "," + num(double(i + 1) * span / 3600) + "," +
           num(double(f.arrivals) / span) + "," + num(disaggregated ? f.prefill_unit_s / span : 0.0) + "," +
           num(f.decode_unit_s / span) + "," + num((f.prefill_unit_s * pn + f.decode_unit_s * dn) / span) + "," +
           num(f.prefill_serving_unit_s > 0 ? f.prefill_busy_s / f.prefill_serving_unit_s : 0.0) + "," +
           num(f.decode_serving_unit_s > 0 ? f.decode_occupancy_s / f.decode_serving_unit_s : 0.0) + "," +
           num(f.waiting_s / span) + "," + num(t.ttft_s.percentile(50)) + "," + num(t.ttft_s.percentile(90)) + "," +
           num(t.ttft_s.percentile(99)) + "," + num(t.tpot_s.percentile(50) * 1e3) + "," +
           num(t.tpot_s.percentile(90) * 1e3) + "," + num(t.tpot_s.percentile(99) * 1e3) + "," +
           num(t.arrived > 0 ? double(t.good) / double(t.arrived) : 0.0) + "," + (kept(t) ? "1" : "0") + "," +
           num(f.input_tokens / span) + "," + num(f.output_tokens / span) + "\n";
  }
  return out;
}

}  // namespace studies::serving_study
