// serve-plan over a load profile (serving_run.hpp): the fewest node-hours that keep the SLO
// interval by interval within the autoscaling policy's bounds, against a fleet sized for the peak.
#include "studies/serving/serving_run.hpp"

#include <algorithm>
#include <cmath>

#include "core/progress_bar.hpp"
#include "studies/serving/hour_rows.hpp"

namespace studies::serving_study {

void ServingStudy::day_plan_rows(StudyResult& r, const serving::ServingConfig& fleet_config) const {
  auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
    r.rows.push_back({"plan/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
  };
  const requests::LoadProfile& profile = generated->arrivals.profile;
  const double day_s = config.duration_s, step_s = fleet_config.interval_s;
  const std::size_t n = static_cast<std::size_t>(std::ceil(day_s / step_s - 1e-9));
  // Each interval's highest rate (the profile is a step function).
  std::vector<double> load(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double from = double(i) * step_s, to = std::min(day_s, from + step_s);
    for (double t = std::floor(from / profile.step_s()) * profile.step_s(); t < to; t += profile.step_s())
      load[i] = std::max(load[i], profile.rate_at(std::max(t, from)));
  }
  const auto [trough_at, peak_at] = std::minmax_element(load.begin(), load.end());
  const double peak = *peak_at, trough = *trough_at;

  ServingStudy flat(*this);
  flat.fleet = false;
  flat.generated->arrivals.profile = {};
  // One unit's share of the peak, or more where the search's lowest rate (1/64 of it) would see
  // fewer than 50 requests in the measured part of a run.
  flat.generated->arrivals.rate_per_s =
      std::max(peak / std::max(1, fleet_config.decode_units), 50 * kSearchMaxScale / (day_window_s - day_warmup_s));
  flat.generated->duration_s = day_window_s;
  flat.config.duration_s = day_window_s;
  flat.search_max_scale = max_search_scale(flat.expected_requests(1.0));
  serving::ServingConfig c = fleet_config;
  c.autoscaling = {};
  c.interval_s = 0;
  c.duration_s = day_window_s;
  c.warmup_s = day_warmup_s;
  c.drain_limit_s = 0;

  // All units simulated together at the day's trough, midway and at its peak (where the load
  // varies, and each load gives a run at least 20 requests to measure; else the peak alone).
  std::vector<std::pair<std::string, double>> checked;
  for (const auto& [name, rate] : {std::pair{"trough", trough}, std::pair{"midway", (trough + peak) / 2}})
    if (rate < peak && rate * (day_window_s - day_warmup_s) >= 20) checked.emplace_back(name, rate);
  checked.emplace_back("peak", peak);
  core::ProgressBar bar("day plan", 1.0 + double(checked.size()));
  const UnitRates rates = flat.unit_rates(c);
  bar.update(1);
  if (!rates.any) {
    r.notes.push_back("Plan: no load meets the SLO on one " + rates.miss +
                      (disaggregated ? " even with the other phase unlimited." : "."));
    return;
  }
  std::vector<Together> together;
  for (const auto& [name, rate] : checked) {
    together.push_back(flat.fit_together(c, rates, rate, "/workload/arrivals/rate_per_s"));
    bar.update(1.0 + double(together.size()));
  }

  // Units of a phase at `rate`: its rate alone divided into it, rounded up, times what running
  // together added (units found together over units from the rates alone) interpolated in load
  // between the loads simulated together; within the policy's bounds.
  struct Step {
    int prefill = 0, decode = 0;
  };
  auto need = [&](double rate, double unit_rate, int Together::*first, bool prefill_units) {
    auto added = [&](const Together& t) {
      return double(prefill_units ? t.config.prefill_units : t.config.decode_units) / (t.*first);
    };
    double share = added(together.back());
    for (std::size_t k = 0; k + 1 < checked.size(); ++k)
      if (rate <= checked[k + 1].second) {
        const double lo = checked[k].second, hi = checked[k + 1].second;
        const double f = std::clamp((rate - lo) / (hi - lo), 0.0, 1.0);
        share = added(together[k]) + (added(together[k + 1]) - added(together[k])) * f;
        break;
      }
    return static_cast<int>(std::ceil(std::ceil(rate / unit_rate - 1e-9) * share - 1e-9));
  };
  std::vector<Step> needed(n);  // what keeps the SLO, unbounded
  for (std::size_t i = 0; i < n; ++i) {
    if (disaggregated) needed[i].prefill = need(load[i], rates.prefill, &Together::first_prefill, true);
    needed[i].decode = need(load[i], rates.decode, &Together::first_decode, false);
  }
  // Within the policy's bounds; a phase it does not scale holds the day's most units all day.
  int capped = 0;
  std::vector<Step> steps = needed;
  for (auto [policy, units] : {std::pair{&fleet_config.autoscaling.prefill, &Step::prefill},
                               std::pair{&fleet_config.autoscaling.decode, &Step::decode}}) {
    int most = 0;
    for (auto& st : steps) {
      if (policy->enabled) {
        capped += st.*units > policy->max_units;
        st.*units = std::clamp(st.*units, policy->min_units, policy->max_units);
      }
      most = std::max(most, st.*units);
    }
    if (!policy->enabled)
      for (auto& st : steps) st.*units = most;
  }

  const double pn = disaggregated ? prefill.nodes : 0.0, dn = decode.nodes;
  struct Held {
    double node_s = 0, prefill_node_s = 0, most_nodes = 0, fewest_nodes = 1e300;
  };
  // Node-seconds held: units added start booting the startup time ahead of the interval that
  // needs them (not before the day).
  auto held = [&](const std::vector<Step>& units) {
    Held h;
    for (std::size_t i = 0; i < n; ++i) {
      const double span = std::min(day_s, double(i + 1) * step_s) - double(i) * step_s;
      const double nodes = units[i].prefill * pn + units[i].decode * dn;
      h.prefill_node_s += units[i].prefill * pn * span;
      h.node_s += nodes * span;
      if (i > 0) {
        const double ahead_p = std::min(double(i) * step_s, fleet_config.autoscaling.prefill.startup_s);
        const double ahead_d = std::min(double(i) * step_s, fleet_config.autoscaling.decode.startup_s);
        const double booting_p = std::max(0, units[i].prefill - units[i - 1].prefill) * pn * ahead_p;
        h.prefill_node_s += booting_p;
        h.node_s += booting_p + std::max(0, units[i].decode - units[i - 1].decode) * dn * ahead_d;
      }
      h.most_nodes = std::max(h.most_nodes, nodes);
      h.fewest_nodes = std::min(h.fewest_nodes, nodes);
    }
    return h;
  };
  const Held plan = held(steps), unbounded = held(needed);
  const double node_s = plan.node_s, prefill_node_s = plan.prefill_node_s, most_nodes = plan.most_nodes,
               fewest_nodes = plan.fewest_nodes;
  const double hours = day_s / 3600;
  const double peak_nodes = most_nodes;  // a fixed fleet of the plan's most nodes, within the policy's bounds
  const double gpn = node_gpus();

  if (disaggregated) {
    row("prefill_unit_rate", "one prefill unit: requests/s within the TTFT SLO (decode unlimited)", "req/s",
        rates.prefill);
    row("decode_unit_rate", "one decode unit: requests/s within the SLO (prefill unlimited)", "req/s", rates.decode);
  } else {
    row("unit_rate", "one unit: requests/s within the SLO", "req/s", rates.decode);
  }
  for (std::size_t k = checked.size(); k-- > 0;) {
    const std::string& name = checked[k].first;
    const Together* t = &together[k];
    const std::string where = name == "midway" ? name : "at the " + name;
    const std::string at = where + " (" + format_number(checked[k].second) + " req/s): ";
    if (disaggregated) row(name + "/prefill_units", at + "prefill units", "units", t->config.prefill_units);
    row(name + "/decode_units", at + (disaggregated ? "decode units" : "units"), "units", t->config.decode_units);
    row(name + "/ttft_p90", at + "TTFT p90, all units simulated together", "s", t->metrics.ttft_s.p90);
    row(name + "/tpot_p90", at + "TPOT p90, all units simulated together", "ms", t->metrics.tpot_s.p90 * 1e3);
    row(name + "/meets_slo", at + "the SLO met (1) or not (0), all units simulated together", "", t->met ? 1.0 : 0.0);
    if (t->added() > 0) r.notes.push_back("Plan " + where + ": " + additions_note(*t));
  }
  row("day/node_hours", "node-hours the plan uses", "node-h", node_s / 3600);
  row("day/avg_nodes", "nodes in use, mean over the day", "nodes", node_s / day_s);
  row("day/peak_nodes", "nodes in use, most", "nodes", most_nodes);
  row("day/fewest_nodes", "nodes in use, fewest", "nodes", fewest_nodes);
  row("day/peak_sized_node_hours", "node-hours of a fixed fleet sized for the peak", "node-h", peak_nodes * hours);
  row("day/saved_vs_peak", "node-hours saved against the fleet sized for the peak", "%",
      100 * (1 - node_s / 3600 / (peak_nodes * hours)));
  row("day/gpu_hours", "GPU-hours the plan uses", "GPU-h", node_s * gpn / 3600);
  if (capped > 0) {
    row("day/unbounded_node_hours", "node-hours that keep the SLO all day without the policy's max_units", "node-h",
        unbounded.node_s / 3600);
    row("day/unbounded_peak_nodes", "nodes that keep the SLO at the peak without the policy's max_units", "nodes",
        unbounded.most_nodes);
  }
  const double requests = profile.expected(0, day_s);
  const double output = requests * generated->output.mean, input = requests * generated->input.mean;
  row("day/output_tokens", "output tokens (the lengths' means)", "billion", output / 1e9);
  if (usd_per_gpu_hour > 0) {
    const double usd = node_s * gpn / 3600 * usd_per_gpu_hour;
    row("day/usd", "the plan's GPU cost at " + format_number(usd_per_gpu_hour) + " $/GPU-hour", "$", usd);
    row("day/peak_sized_usd", "a fleet sized for the peak, the same day", "$",
        peak_nodes * hours * gpn * usd_per_gpu_hour);
    if (disaggregated) {
      row("day/per_million_input", "cost per million input tokens (the prefill nodes' share)", "$",
          prefill_node_s * gpn / 3600 * usd_per_gpu_hour / (input / 1e6));
      row("day/per_million_output", "cost per million output tokens (the decode nodes' share)", "$",
          (node_s - prefill_node_s) * gpn / 3600 * usd_per_gpu_hour / (output / 1e6));
    } else {
      row("day/per_million_tokens", "cost per million tokens, input and output", "$", usd / ((input + output) / 1e6));
    }
  }
  hour_rows(row, n, step_s, hours, "nodes the plan holds (mean)", "highest request rate of its intervals (mean)",
            [&](std::size_t i) {
              return std::pair{(steps[i].prefill * pn + steps[i].decode * dn) * step_s, load[i] * step_s};
            });
  std::string csv =
      std::string("start_h,end_h,load_per_s,") + (disaggregated ? "prefill_units,decode_units" : "units") + ",nodes\n";
  for (std::size_t i = 0; i < n; ++i)
    csv += format_number(double(i) * step_s / 3600) + "," +
           format_number(std::min(day_s, double(i + 1) * step_s) / 3600) + "," + format_number(load[i]) + "," +
           (disaggregated ? std::to_string(steps[i].prefill) + "," : std::string()) + std::to_string(steps[i].decode) +
           "," + format_number(steps[i].prefill * pn + steps[i].decode * dn) + "\n";
  r.series_csv = csv;

  r.notes.push_back(
      "Plan for the day: each " + format_number(step_s) +
      " s interval holds the units its highest request rate needs: each kind's rate "
      "alone divided into it, rounded up, times the units more that all units simulated together needed at the day's trough (" +
      format_number(trough) + " req/s), midway and at its peak (" + format_number(peak) +
      " req/s), as a share interpolated in load between them; each kind's rate alone from "
      "the load held flat, " +
      format_number(day_window_s) + " s runs measured after " + format_number(day_warmup_s) +
      " s. Units added start booting the policy's startup time ahead of the "
      "interval that needs them (a perfect forecast: the fewest node-hours a policy with these bounds can reach); units removed are "
      "freed at the interval's start, their drain not counted. A phase the policy does not scale holds the day's most units all day. "
      "The fleet sized for the peak holds the plan's most nodes all day. The policy's own day is `codesim run` on this scenario.");
  if (capped > 0)
    r.notes.push_back("Plan: in " + std::to_string(capped) +
                      " interval(s) a phase needed more units than the policy's max_units allow; it holds the most "
                      "allowed there, and the SLO is at risk.");
  r.notes.push_back(deployment_note());
}

}  // namespace studies::serving_study
