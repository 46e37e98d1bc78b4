// The serving study's run (serving_run.hpp): each unit's step costs, the request source (drawn,
// listed, replayed faster, closed-loop or capped clients), the engine around the simulation, and
// the report it writes, from the rows and notes of the files beside it.
#include "studies/serving/serving_run.hpp"

#include <algorithm>
#include <cmath>

#include "hw/attention_backend.hpp"
#include "core/analytic_engine.hpp"
#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "requests/capped_source.hpp"
#include "requests/closed_loop_source.hpp"
#include "requests/generated_source.hpp"
#include "requests/listed_source.hpp"
#include "requests/prefetched_source.hpp"
#include "serving/engine_front_end.hpp"

namespace studies::serving_study {

namespace {

// A run whose requests pass kMaxRequests (a bursty process's count varies around rate x duration).
// Closed-loop clients send as fast as requests finish: their count is known only as they run.
template <class Run>
serving::ServingResult within_request_limit(const Run& run, bool closed_loop) {
  try {
    return run();
  } catch (const requests::TooManyRequests& e) {
    if (closed_loop)
      throw core::InputError(
          "/workload/duration_s",
          std::string(e.what()) + ": at most " + short_number(double(requests::kMaxRequests)) +
              " requests in a run; the clients sent them faster than that: shorten duration_s or lower clients");
    throw core::InputError("/workload/arrivals",
                           std::string(e.what()) + ": at most " + short_number(double(requests::kMaxRequests)) +
                               " requests in a run; lower rate_per_s or duration_s, or raise burstiness");
  }
}

}  // namespace

StudyResult ServingStudy::run(const RunOptions& options) const {
  StudyResult r;
  if (!options.simulate) {  // the rows named, not run
    add_rows(r, "", {}, serving::ServingResult());
    breakdown_rows(r, nullptr, nullptr, nullptr);
    for (auto& row : r.rows) row.ours = kNotRun;
    return r;
  }
  const workload::Roofline roofline =
      compute.roofline(*cluster.gpu)
          .with_attention(hw::attention_backend_for(*cluster.gpu, config.engine.attention_backends));
  net::Cluster prefill_net = cluster.cluster, decode_net = cluster.cluster;
  for (auto [net, unit] : {std::pair{&prefill_net, &prefill}, std::pair{&decode_net, &decode}}) {
    net->gpus_per_node = unit->config.deployment.gpus_per_node;
    net->nodes = unit->config.deployment.gpus / net->gpus_per_node;
  }
  serving::StepCost prefill_cost(*model, roofline, prefill.config.deployment, links_for(prefill), base,
                                 flow ? &prefill_net : nullptr);
  serving::StepCost decode_cost(*model, roofline, decode.config.deployment, links_for(decode), base,
                                flow ? &decode_net : nullptr);
  serving::ServingConfig c = config;
  c.prefill.cost = &prefill_cost;
  c.decode.cost = &decode_cost;
  if (options.trace) c.trace_until_s = std::min(c.duration_s, c.warmup_s + 10.0);

  if (fleet) {
    if (!options.requests_out.empty())
      throw core::InputError(
          "--requests-out",
          "a fleet over time streams its requests' records rather than keeping them; use --series for its figures by interval");
    if (plan)
      day_plan_rows(r, c);
    else
      fleet_run(r, c, prefill_cost, decode_cost);
    return r;
  }
  // A concurrency sweep: each level of clients its own run, its rows under clients_<N>/; the
  // last level's run is the one the rest of the report describes.
  for (std::size_t i = 0; i + 1 < client_levels.size(); ++i) client_rows(r, c, client_levels[i]);
  const int level = client_levels.empty() ? 0 : client_levels.back();
  const auto result = simulate(c, 1.0, "serving", level);
  // Benchmark clients report means beside percentiles, one level or many.
  if (!client_levels.empty()) client_rows(r, c, level, &result);
  if (!options.requests_out.empty()) write_requests_csv(options.requests_out, result);
  const auto m = serving::serving_metrics(result, c, slo);
  add_rows(r, "", m, result);
  std::vector<std::pair<std::string, workload::ServingStep>> typical;
  breakdown_rows(r, &result, &prefill_cost, &decode_cost, &typical);
  ttft_rows(r, result, c);
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
  if (generated && std::isinf(generated->arrivals.rate_per_s)) throughput_mode_rows(r, result, c);
  if (!c.engine.adds_nothing()) engine_rows(r, result, c.engine, c.duration_s - c.warmup_s);
  if (search) search_rows(r, c);
  if (plan) plan_rows(r, c);
  if (options.trace && !result.trace_json.empty()) r.trace_json = with_step_stages(result.trace_json, typical);

  if (m.overloaded)
    r.notes.push_back("overloaded: arrivals exceed what the deployment serves (" + format_number(m.offered_per_s) +
                      " req/s offered, " + format_number(m.served_per_s) +
                      " served, over the window's second half); the requests waiting for a first token grew by " +
                      format_number(m.offered_per_s - m.served_per_s) + " a second.");
  r.notes.push_back(deployment_note());
  r.notes.push_back(workload_note(result.requests.size()) + " Measured: the " + std::to_string(m.measured) +
                    " requests arriving from " + format_number(c.warmup_s) + " s to " + format_number(c.duration_s) +
                    " s (" + std::to_string(m.finished) + " finished" +
                    (result.unfinished > 0
                         ? "; " + std::to_string(result.unfinished) +
                               " still queued or running when the run stopped at " + format_number(result.end_s) +
                               " s: the load exceeds what the deployment serves"
                         : "") +
                    ").");
  r.notes.push_back(step_times_note(prefill_cost, decode_cost));
  return r;
}

std::string ServingStudy::workload_note(std::size_t requests) const {
  std::string text = workload_text;
  const std::string slot = "{requests}";
  if (const auto at = text.find(slot); at != std::string::npos) text.replace(at, slot.size(), std::to_string(requests));
  return text;
}

double ServingStudy::expected_requests(double scale) const {
  return generated ? base_rate() * scale * config.duration_s : double(scale >= 1 ? whole_trace.size() : trace.size());
}

workload::ServingLinks ServingStudy::links_for(const UnitSpec& u) const {
  workload::ServingLinks l = links;
  if (!u.config.deployment.direct_comm) {
    workload::CommKernels kernels = compute.kernels;  // on the SMs this unit gives them
    kernels.sms = u.config.deployment.comm_sms;
    l.ib_Bps = kernels.ib_Bps(l.ib_Bps);
    l.nvlink_Bps = kernels.nvlink_Bps(l.nvlink_Bps);
  }
  return l;
}

std::string ServingStudy::with_step_stages(const std::string& trace,
                                           const std::vector<std::pair<std::string, workload::ServingStep>>& steps) {
  nlohmann::json doc = nlohmann::json::parse(trace);
  int pid = 10;
  for (const auto& [name, step] : steps) {
    nlohmann::json stages = nlohmann::json::parse(core::evaluate_analytically(step.graph).chrome_trace_json());
    for (auto& e : stages["traceEvents"]) {
      e["pid"] = pid;
      if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") e["args"]["name"] = name;
      doc["traceEvents"].push_back(std::move(e));
    }
    ++pid;
  }
  return doc.dump();
}

std::vector<requests::Request> ServingStudy::requests_at(double scale, double duration_s) const {
  std::vector<requests::Request> scaled;
  for (auto q : whole_trace)
    if ((q.arrival_s /= scale) < duration_s) scaled.push_back(std::move(q));
  return scaled;
}

serving::ServingResult ServingStudy::simulate(const serving::ServingConfig& c, double scale, const char* progress,
                                              int clients_count) const {
  std::optional<core::ProgressBar> bar;
  if (progress) bar.emplace(progress, c.duration_s);
  const auto update = [&](double t) {
    if (bar) bar->update(std::min(t, c.duration_s));
  };
  return within_request_limit(
      [&] {
        // The engine's front end before the simulation, its emission after.
        auto through_engine = [&](requests::RequestSource& sent) {
          serving::EngineFrontEnd front(sent, c.engine, c.warmup_s, c.duration_s);
          serving::ServingResult result = serving::simulate_serving(front, c, update);
          serving::apply_token_path(result, c.engine);
          result.way_in_s = front.mean_way_in_s();
          result.front_end_behind = front.behind();
          return result;
        };
        if (clients_count > 0 && capped) {
          requests::GeneratedSource arrivals(*generated);
          requests::CappedSource source(arrivals, clients_count, c.duration_s);
          return through_engine(source);
        }
        if (clients_count > 0) {
          requests::ClientLoop loop = clients;
          loop.clients = clients_count;
          requests::ClosedLoopSource source(*generated, loop);
          return through_engine(source);
        }
        if (generated) {  // drawn as the run goes, at `scale` times the rate
          requests::GeneratedWorkload g = *generated;
          g.arrivals.rate_per_s *= scale;
          if (!g.arrivals.profile.empty()) g.arrivals.profile = g.arrivals.profile.scaled(scale);
          requests::GeneratedSource drawn(g);
          requests::PrefetchedSource source(drawn);  // drawn on the second core
          return through_engine(source);
        }
        const std::vector<requests::Request> scaled =
            scale == 1 ? std::vector<requests::Request>{} : requests_at(scale, c.duration_s);
        requests::ListedSource source(scale == 1 ? trace : scaled);
        return through_engine(source);
      },
      clients_count > 0 && !capped);
}

double ServingStudy::gpus_of(const serving::ServingConfig& c) const {
  const double gpn = node_gpus();
  return double(c.decode_units) * decode.nodes * gpn +
         (disaggregated ? double(c.prefill_units) * prefill.nodes * gpn : 0.0);
}

}  // namespace studies::serving_study
