#include "studies/inference/study_serving.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/analytic_engine.hpp"
#include "core/batch_channel.hpp"
#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "core/units.hpp"
#include "requests/capped_source.hpp"
#include "requests/closed_loop_source.hpp"
#include "serving/engine_front_end.hpp"
#include "requests/generated_source.hpp"
#include "requests/listed_source.hpp"
#include "requests/prefetched_source.hpp"
#include "serving/request_series.hpp"
#include "serving/request_trace.hpp"
#include "serving/schedulers/rank_scheduler.hpp"
#include "serving/serving_metrics.hpp"
#include "serving/serving_simulation.hpp"
#include "studies/config/affinity_config.hpp"
#include "studies/config/cluster_config.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/config/engine_config.hpp"
#include "studies/config/input_file.hpp"
#include "studies/config/model_config.hpp"
#include "studies/config/output_file.hpp"
#include "studies/config/overlap_config.hpp"
#include "workload/moe/expert_placement.hpp"

namespace studies {

namespace {

std::string gb(double bytes) { return format_number(std::round(bytes / 1e8) / 10); }

// A fleet's intervals of figures (each keeps its requests' percentile sketches, up to about
// 100 KB, for the whole run, and a day's plan a row each) and its autoscaler's ticks (each an
// event that looks at every unit), over a run.
constexpr double kMaxSeriesIntervals = 10000;
constexpr double kMaxAutoscalingTicks = 1e6;

// `key`, an interval of the run: at most its duration, and at most `max_count` of them in it,
// refused before anything is made for them.
void check_run_interval(core::JsonReader& r, const std::string& key, double interval_s, double duration_s, double max_count,
                        const std::string& counted, const std::string& past_run) {
  if (interval_s > duration_s)
    throw core::InputError(r.pointer_of(key), format_number(interval_s) + " s is not allowed; at most duration_s (" + format_number(duration_s) + " s)" + past_run);
  if (duration_s / interval_s > max_count)
    throw core::InputError(r.pointer_of(key), format_number(interval_s) + " s is not allowed: " + format_number(std::ceil(duration_s / interval_s)) + " " +
                                                  counted + " over duration_s " + format_number(duration_s) + " s; at most " + format_number(max_count) +
                                                  " (an interval of at least " + format_number(duration_s / max_count) + " s)");
}

// Searches replay the workload up to 64x its rate and the plan's throughput curve up to 128x: a
// trace is read that far, and the rates they try are held to serving::kMaxRequests a run.
constexpr double kMaxReplayScale = 128;

// serve-plan adds units one at a time while the whole misses the SLO, at most this many.
constexpr int kMaxPlanAdditions = 16;
// An SLO search tries the workload's rate from 1/64 to this many times it.
constexpr double kSearchMaxScale = 64;

// The most an SLO search scales a workload of `expected_requests` at its own rate: kSearchMaxScale,
// held a tenth below the requests a run may hold (a Poisson count at the limit passes it half the time).
double max_search_scale(double expected_requests) {
  return std::min(kSearchMaxScale, 0.9 * double(serving::kMaxRequests) / expected_requests);
}

std::string short_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

std::string bytes_text(double bytes) {
  return bytes >= 1e12 ? short_number(bytes / 1e12) + " TB" : bytes >= 1e9 ? short_number(bytes / 1e9) + " GB" : short_number(bytes / 1e6) + " MB";
}

// Refused before anything is drawn: `what` ("1e+12 req/s over duration_s 60 s") implies
// `requests`, more than a run holds.
// A DP rank's KV cache in tokens: where some layers keep only a window of the context, as the
// longest sequence it holds, and which layers do. With pipeline stages, a DP rank's batches in
// flight share it: the tokens are each one's, and a token's bytes those of all its layers.
std::string kv_capacity_text(const serving::MemoryPlan& mem, int stages) {
  const auto& p = mem.kv_pages;
  const std::string per_token = format_number(mem.kv_bytes_per_token_gpu / 1e3) + " KB a token" + (stages > 1 ? " over all stages" : "");
  const std::string per_rank = stages > 1 ? " per batch in flight (" + std::to_string(stages) + " per DP rank)" : " per DP rank";
  if (p.windowed.empty()) return std::to_string(mem.kv_tokens) + " tokens" + per_rank + " (" + per_token + ")";
  int groups = p.full_groups;
  for (const auto& w : p.windowed) groups += w.groups;
  std::string windows;
  for (std::size_t i = 0; i < p.windowed.size(); ++i)
    windows += (i ? " and " : "") + std::to_string(p.windowed[i].groups) + " of " + std::to_string(groups) + " page groups of layers keep only its last " +
               std::to_string(p.windowed[i].window_tokens) + " tokens";
  windows += ", their older pages freed";
  if (p.full_groups == 0) return "a sequence of any length" + per_rank + " (" + per_token + " within the window; " + windows + ")";
  return std::to_string(mem.kv_tokens) + " tokens of one sequence" + per_rank + " (" + per_token + "; " + windows + ")";
}

// A value as a message quotes it: numbers as the rows print them, anything else as JSON.
std::string shown(const nlohmann::json& v) { return v.is_number() ? format_number(v.get<double>()) : v.dump(); }

// A run's figures by the hour, from its `n` intervals of `interval_s` (none where an hour is not a
// whole number of them, or past two days): each hour's mean nodes and requests/s, from `of(i)`,
// interval i's node-seconds and requests.
template <class Row, class Of>
void hour_rows(const Row& row, std::size_t n, double interval_s, double hours, const std::string& nodes_metric, const std::string& load_metric, const Of& of) {
  const double per_hour = 3600 / interval_s;
  if (std::abs(per_hour - std::round(per_hour)) >= 1e-9 || hours > 48) return;
  const auto per = static_cast<std::size_t>(std::llround(per_hour));
  for (std::size_t h = 0; double(h) < hours; ++h) {
    double nodes = 0, requests = 0, span = 0;
    for (std::size_t i = h * per; i < std::min(n, (h + 1) * per); ++i) {
      const auto [node_s, arrived] = of(i);
      nodes += node_s;
      requests += arrived;
      span += interval_s;
    }
    if (span <= 0) continue;
    char id[16];
    std::snprintf(id, sizeof id, "%02zu", h);
    row("hour/" + std::string(id) + "/nodes", "hour " + std::string(id) + ": " + nodes_metric, "nodes", nodes / span);
    row("hour/" + std::string(id) + "/load", "hour " + std::string(id) + ": " + load_metric, "req/s", requests / span);
  }
}

void check_request_count(const std::string& pointer, const std::string& what, double requests) {
  if (requests <= double(serving::kMaxRequests)) return;
  throw core::InputError(pointer, what + " is not allowed: " + short_number(requests) + " requests, " + bytes_text(requests * serving::bytes_per_request()) +
                                      " of request records; at most " + short_number(double(serving::kMaxRequests)) + " requests in a run");
}

// Refused before any unit is made: `what` ("100000 units of 144 DP ranks") implies `ranks`.
void check_rank_count(const std::string& pointer, const std::string& what, double ranks) {
  if (ranks <= double(serving::kMaxRanks)) return;
  throw core::InputError(pointer, what + " is not allowed: " + short_number(ranks) + " DP ranks, " + bytes_text(ranks * serving::bytes_per_rank()) +
                                      " of rank state; at most " + short_number(double(serving::kMaxRanks)) + " DP ranks in a deployment");
}

// A run whose requests pass kMaxRequests (a bursty process's count varies around rate x duration).
// Closed-loop clients send as fast as requests finish: their count is known only as they run.
template <class Run>
serving::ServingResult within_request_limit(const Run& run, bool closed_loop) {
  try {
    return run();
  } catch (const serving::TooManyRequests& e) {
    if (closed_loop)
      throw core::InputError("/workload/duration_s", std::string(e.what()) + ": at most " + short_number(double(serving::kMaxRequests)) +
                                                         " requests in a run; the clients sent them faster than that: shorten duration_s or lower clients");
    throw core::InputError("/workload/arrivals", std::string(e.what()) + ": at most " + short_number(double(serving::kMaxRequests)) +
                                                      " requests in a run; lower rate_per_s or duration_s, or raise burstiness");
  }
}

// One kind of unit as the scenario gives it.
struct UnitSpec {
  std::string pointer;
  int units = 1;
  double nodes = 1;  // GPUs / GPUs per node: a unit smaller than a node takes its share of one
  serving::UnitConfig config;
  double reserve_bytes = 0;
  double kv_share_of_free = 0;            // the engine's KV share of what the weights leave (0: none)
  bool reserve_holds_activations = false;  // the engine's reserve covers the activations
  serving::MemoryInput memory_input;  // what its memory plan was made from
};

class ServingStudy : public Study {
 public:
  const workload::Model* model = nullptr;
  ClusterConfig cluster;
  ComputeConfig compute;
  bool flow = false;
  bool disaggregated = true;
  UnitSpec prefill, decode;
  serving::ServingConfig config;
  workload::ServingRequest base;
  workload::ServingLinks links;
  std::optional<serving::GeneratedWorkload> generated;  // drawn as each run goes (a fleet's hour is 10.8 million requests)
  std::vector<serving::Request> trace;         // a trace's requests, as run, within duration_s
  std::vector<serving::Request> whole_trace;   // to replay at another pace
  std::string workload_text;                   // {requests}: where the number of requests goes

  std::string workload_note(std::size_t requests) const {
    std::string text = workload_text;
    const std::string slot = "{requests}";
    if (const auto at = text.find(slot); at != std::string::npos) text.replace(at, slot.size(), std::to_string(requests));
    return text;
  }
  serving::ClientLoop clients;    // closed-loop benchmark clients (client_levels: how many, each level a run)
  bool capped = false;            // beside the workload's arrivals: the clients cap the requests in flight
  std::vector<int> client_levels;
  // A fleet over time (a load profile, autoscaling or a cost given): series by interval, the
  // records streamed, the day's totals, the fleet's cost.
  bool fleet = false;
  double usd_per_gpu_hour = 0;
  double usd_per_million_hit = 0, usd_per_million_miss = 0, usd_per_million_output = 0;  // a price list (0: none)
  bool priced = false;
  serving::Slo slo;
  bool search = false;
  double search_max_scale = kSearchMaxScale;  // held to kMaxRequests at the scenario's duration
  bool plan = false;
  double plan_rate = 0;  // the load to plan for (0: the workload's)
  // A plan for a day (a fleet with a load profile): the stationary runs that find the rates.
  double day_window_s = 300, day_warmup_s = 60;
  std::vector<int> plan_caps;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    if (!options.simulate) {  // the rows named, not run
      add_rows(r, "", {}, serving::ServingResult());
      breakdown_rows(r, nullptr, nullptr, nullptr);
      for (auto& row : r.rows) row.ours = kNotRun;
      return r;
    }
    const workload::Roofline roofline = compute.roofline(*cluster.gpu);
    net::Cluster prefill_net = cluster.cluster, decode_net = cluster.cluster;
    for (auto [net, unit] : {std::pair{&prefill_net, &prefill}, std::pair{&decode_net, &decode}}) {
      net->gpus_per_node = unit->config.deployment.gpus_per_node;
      net->nodes = unit->config.deployment.gpus / net->gpus_per_node;
    }
    serving::StepCost prefill_cost(*model, roofline, prefill.config.deployment, links_for(prefill), base, flow ? &prefill_net : nullptr);
    serving::StepCost decode_cost(*model, roofline, decode.config.deployment, links_for(decode), base, flow ? &decode_net : nullptr);
    serving::ServingConfig c = config;
    c.prefill.cost = &prefill_cost;
    c.decode.cost = &decode_cost;
    if (options.trace) c.trace_until_s = std::min(c.duration_s, c.warmup_s + 10.0);

    if (fleet) {
      if (!options.requests_out.empty())
        throw core::InputError("--requests-out", "a fleet over time streams its requests' records rather than keeping them; use --series for its figures by interval");
      if (plan) day_plan_rows(r, c);
      else fleet_run(r, c, prefill_cost, decode_cost);
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
      r.rows.push_back({"slo/goodput", label_, "goodput: requests/s within the SLO", "req/s", {}, m.goodput_requests_per_s, Basis::kSimulated});
      r.rows.push_back({"slo/attainment", label_, "requests within the SLO", "%", {}, 100 * m.slo_attainment, Basis::kSimulated});
    }
    if (generated && std::isinf(generated->arrivals.rate_per_s)) throughput_mode_rows(r, result, c);
    if (!c.engine.adds_nothing()) engine_rows(r, result, c.engine, c.duration_s - c.warmup_s);
    if (search) search_rows(r, c);
    if (plan) plan_rows(r, c);
    if (options.trace && !result.trace_json.empty()) r.trace_json = with_step_stages(result.trace_json, typical);

    if (m.overloaded)
      r.notes.push_back("overloaded: arrivals exceed what the deployment serves (" + format_number(m.offered_per_s) + " req/s offered, " +
                        format_number(m.served_per_s) + " served, over the window's second half); the requests waiting for a first token grew by " +
                        format_number(m.offered_per_s - m.served_per_s) + " a second.");
    r.notes.push_back(deployment_note());
    r.notes.push_back(workload_note(result.requests.size()) + " Measured: the " + std::to_string(m.measured) + " requests arriving from " + format_number(c.warmup_s) +
                      " s to " + format_number(c.duration_s) + " s (" + std::to_string(m.finished) + " finished" +
                      (result.unfinished > 0 ? "; " + std::to_string(result.unfinished) + " still queued or running when the run stopped at " +
                                                   format_number(result.end_s) + " s: the load exceeds what the deployment serves"
                                             : "") +
                      ").");
    r.notes.push_back(step_times_note(prefill_cost, decode_cost));
    return r;
  }

  bool gives_series() const override { return fleet; }
  bool keeps_requests() const override { return !fleet && client_levels.size() <= 1; }
  bool gives_trace() const override { return !fleet; }

  std::string label_;

  // How step times are made, and how many step shapes the run computed for how many steps.
  std::string step_times_note(const serving::StepCost& prefill_cost, const serving::StepCost& decode_cost) const {
    // Written from what the step holds: a dense model has no experts, a GQA model no FlashMLA.
    const bool mla = model->attention.kind == workload::AttentionKind::kMla;
    const bool hopper_kernels = cluster.gpu->fp8_dense_flops_per_s > 0;
    std::vector<std::string> parts = {
        std::string("attention per DP rank from its own sequences, ") + (mla ? "FlashMLA in decode" : "the attention core on the roofline with its KV reads in decode") +
        (hopper_kernels ? ", FlashAttention-3 in prefill" : ", the roofline in prefill")};
    if (model->moe) {
      const bool expert_tp = config.decode.deployment.expert_tp;
      parts.push_back(expert_tp ? "every expert tensor-parallel, its GEMMs over the unit's tokens, gathered and reduce-scattered"
                                : std::string("grouped expert GEMMs over the placed experts; the EP all-to-all ") +
                                      (flow ? "flow-simulated" : "from the busiest port"));
    }
    if (model->moe_layer_count() < model->layers) parts.push_back("dense FFN GEMMs, TP-sharded");
    const bool tp = config.decode.deployment.attention_tp > 1 || (disaggregated && config.prefill.deployment.attention_tp > 1);
    if (tp) parts.push_back("each TP block's all-gather and reduce-scatter on NVLink (their own breakdown row)");
    parts.push_back("the memory-bound kernels one by one");
    const bool micro_batches = config.decode.deployment.micro_batches > 1 || (disaggregated && config.prefill.deployment.micro_batches > 1);
    if (micro_batches) parts.push_back("micro-batch overlap");
    std::string joined;
    for (const auto& part : parts) joined += (joined.empty() ? "" : "; ") + part;
    return "Step times from the kernel models (workload/inference: " + joined + "); GEMMs as " + compute.gemm_library->name +
           " ran them (data/gemm_libraries" +
           (compute.precision() == hw::GemmPrecision::kFp4 ? "; FP4 at its FP8 constants and FP4's rate, an assumption" : "") +
           "); the busiest DP rank gates each step. " + std::to_string(prefill_cost.computed() + decode_cost.computed()) +
           " step shapes computed for " + std::to_string(prefill_cost.looked_up() + decode_cost.looked_up()) +
           " steps (inputs on a grid within 1.1%; tests hold the grid to the direct figure).";
  }

  // A fleet's run: the records streamed into per-interval tallies, the day's totals, the fleet
  // by the hour, its cost.
  void fleet_run(StudyResult& r, const serving::ServingConfig& c, serving::StepCost& prefill_cost, serving::StepCost& decode_cost) const {
    serving::RequestSeries series(c.interval_s, slo);
    // Done as the share of the load arrived, not of the time passed: under a load profile the
    // busy hours cost most (a day's estimate from its quiet night had been half the run).
    const serving::LoadProfile* profile = generated && !generated->arrivals.profile.empty() ? &generated->arrivals.profile : nullptr;
    const auto done_at = [&](double t) { return profile ? profile->expected(0, std::min(t, c.duration_s)) : std::min(t, c.duration_s); };
    core::ProgressBar bar("serving", done_at(c.duration_s));
    const auto update = [&](double t) { bar.update(done_at(t)); };
    // The requests are drawn, and their records summed, on the second core: the simulation
    // reads neither (an open-loop source; the sums are read once it has run).
    core::BackgroundSink<serving::RequestRecord> records([&](const serving::RequestRecord& q) { series.add(q); });
    const auto record = [&](const serving::RequestRecord& q) { records.push(q); };
    serving::ServingResult result;
    if (generated) {
      serving::GeneratedSource drawn(*generated);
      serving::PrefetchedSource source(drawn);
      result = serving::simulate_serving(source, c, update, record);
    } else {
      serving::ListedSource source(trace);
      result = serving::simulate_serving(source, c, update, record);
    }
    records.close();
    series.finish(result.end_s);
    const auto m = serving::streamed_metrics(series, result, c);
    add_rows(r, "", m, result);
    breakdown_rows(r, &result, &prefill_cost, &decode_cost);
    if (slo.ttft_s > 0 || slo.tpot_s > 0) {
      r.rows.push_back({"slo/goodput", label_, "goodput: requests/s within the SLO", "req/s", {}, m.goodput_requests_per_s, Basis::kSimulated});
      r.rows.push_back({"slo/attainment", label_, "requests within the SLO", "%", {}, 100 * m.slo_attainment, Basis::kSimulated});
    }
    fleet_rows(r, c, result, series);
    r.notes.push_back(deployment_note());
    r.notes.push_back(workload_note(std::size_t(result.arrived)) + " Measured: the " + std::to_string(m.measured) + " requests arriving from " +
                      format_number(c.warmup_s) + " s to " + format_number(c.duration_s) + " s (" + std::to_string(m.finished) + " finished" +
                      (result.unfinished > 0 ? "; " + std::to_string(result.unfinished) + " unfinished when the run stopped at " + format_number(result.end_s) + " s" : "") +
                      "). Percentiles from sketches within 0.5% of the value (the records are streamed, not kept).");
    r.notes.push_back(step_times_note(prefill_cost, decode_cost));
  }

  // The SLO as the plan and search judge it: p90s within it, over an interval's requests.
  bool kept(const serving::RequestTally& t) const {
    if (t.arrived == 0) return true;
    return (slo.ttft_s <= 0 || t.ttft_s.percentile(90) <= slo.ttft_s) && (slo.tpot_s <= 0 || !(t.tpot_s.percentile(90) > slo.tpot_s));
  }

  void fleet_rows(StudyResult& r, const serving::ServingConfig& c, const serving::ServingResult& res, const serving::RequestSeries& series) const {
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
    row("fleet/saved_vs_peak", "node-hours saved against the fleet sized for the peak", "%", peak_nodes > 0 ? 100 * (1 - node_s / 3600 / (peak_nodes * hours)) : 0.0);
    row("fleet/gpu_hours_used", "GPU-hours used", "GPU-h", node_s * gpn / 3600);
    row("fleet/gpu_hours_freed", "GPU-hours freed (the whole fleet of " + format_number(fleet_nodes) + " nodes, less those used)", "GPU-h",
        fleet_nodes * gpn * hours - node_s * gpn / 3600);
    row("fleet/scale_ups", "units started (or drains called back)", "count", res.scale_ups);
    row("fleet/scale_downs", "units drained (or starts called off)", "count", res.scale_downs);
    row("fleet/input_tokens", "input tokens (cache hits included)", "billion", input / 1e9);
    row("fleet/cached_input_share", "input tokens from the prefix cache", "%", input > 0 ? 100 * (1 - computed / input) : 0.0);
    row("fleet/output_tokens", "output tokens", "billion", output / 1e9);
    row("slo/intervals_kept", "intervals whose TTFT p90 and TPOT p90 kept the SLO (of those with arrivals)", "%",
        loaded > 0 ? 100.0 * double(kept_count) / double(loaded) : 0.0);
    if (usd_per_gpu_hour > 0) {
      const double usd = node_s * gpn / 3600 * usd_per_gpu_hour;
      row("cost/usd", "the run's GPU cost at " + format_number(usd_per_gpu_hour) + " $/GPU-hour", "$", usd);
      row("cost/per_million_tokens", "cost per million tokens, input and output", "$", usd / ((input + output) / 1e6));
      if (disaggregated) {
        row("cost/per_million_input", "cost per million input tokens (the prefill nodes' share)", "$", prefill_node_s * gpn / 3600 * usd_per_gpu_hour / (input / 1e6));
        row("cost/per_million_output", "cost per million output tokens (the decode nodes' share)", "$", decode_node_s * gpn / 3600 * usd_per_gpu_hour / (output / 1e6));
      }
      if (priced) {
        const double revenue = ((input - computed) * usd_per_million_hit + computed * usd_per_million_miss + output * usd_per_million_output) / 1e6;
        row("cost/revenue", "revenue at the price list, every token charged", "$", revenue);
        if (revenue > 0) row("cost/margin", "revenue less GPU cost, of the revenue", "%", 100 * (revenue - usd) / revenue);
        else r.notes.push_back("No revenue at the price list (every price 0, or no token served): the margin is undefined and not reported.");
      }
    }
    hour_rows(row, n, c.interval_s, hours, "nodes in use (mean)", "requests/s arriving", [&](std::size_t i) {
      return std::pair{iv[i].prefill_unit_s * pn + iv[i].decode_unit_s * dn, double(iv[i].arrivals)};
    });
    r.series_csv = fleet_csv(c, res, series);
    r.notes.push_back("Fleet: units in use are serving, starting or draining (their GPUs are taken); the peak is the most nodes in use at once within an "
                      "interval; the fleet sized for the peak holds that many nodes for the whole run. GPU-hours and cost over the " +
                      format_number(hours) + " h of arrivals; tokens include the drain after it." +
                      (disaggregated ? " Input tokens carry the prefill nodes' cost, output tokens the decode nodes'." : ""));
  }

  std::string fleet_csv(const serving::ServingConfig& c, const serving::ServingResult& res, const serving::RequestSeries& series) const {
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
      out += num(double(i) * span / 3600) + "," + num(double(i + 1) * span / 3600) + "," + num(double(f.arrivals) / span) + "," +
             num(disaggregated ? f.prefill_unit_s / span : 0.0) + "," + num(f.decode_unit_s / span) + "," +
             num((f.prefill_unit_s * pn + f.decode_unit_s * dn) / span) + "," +
             num(f.prefill_serving_unit_s > 0 ? f.prefill_busy_s / f.prefill_serving_unit_s : 0.0) + "," +
             num(f.decode_serving_unit_s > 0 ? f.decode_occupancy_s / f.decode_serving_unit_s : 0.0) + "," + num(f.waiting_s / span) + "," +
             num(t.ttft_s.percentile(50)) + "," + num(t.ttft_s.percentile(90)) + "," + num(t.ttft_s.percentile(99)) + "," +
             num(t.tpot_s.percentile(50) * 1e3) + "," + num(t.tpot_s.percentile(90) * 1e3) + "," + num(t.tpot_s.percentile(99) * 1e3) + "," +
             num(t.arrived > 0 ? double(t.good) / double(t.arrived) : 0.0) + "," + (kept(t) ? "1" : "0") + "," + num(f.input_tokens / span) + "," +
             num(f.output_tokens / span) + "\n";
    }
    return out;
  }

  double base_rate() const { return generated ? generated->arrivals.rate_per_s : double(trace.size()) / config.duration_s; }
  // Requests in a run at `scale` times the workload's rate (a trace: those read, at most).
  double expected_requests(double scale) const {
    return generated ? base_rate() * scale * config.duration_s : double(scale >= 1 ? whole_trace.size() : trace.size());
  }

 private:
  workload::ServingLinks links_for(const UnitSpec& u) const {
    workload::ServingLinks l = links;
    if (!u.config.deployment.direct_comm) {
      workload::CommKernels kernels = compute.kernels;  // on the SMs this unit gives them
      kernels.sms = u.config.deployment.comm_sms;
      l.ib_Bps = kernels.ib_Bps(l.ib_Bps);
      l.nvlink_Bps = kernels.nvlink_Bps(l.nvlink_Bps);
    }
    return l;
  }

  // The typical steps' stage graphs, each a process of its own beside the requests in the trace.
  static std::string with_step_stages(const std::string& trace, const std::vector<std::pair<std::string, workload::ServingStep>>& steps) {
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

  // Where a typical step's time goes, per phase: one step at the gating DP rank's mean load over
  // the measured steps (`result` null: the rows named only).
  void breakdown_rows(StudyResult& r, const serving::ServingResult* result, serving::StepCost* prefill_cost, serving::StepCost* decode_cost,
                      std::vector<std::pair<std::string, workload::ServingStep>>* steps = nullptr) const {
    std::string loads;
    for (const bool prefill_phase : {true, false}) {
      if (prefill_phase && !disaggregated) continue;
      const std::string phase = !disaggregated ? "step" : prefill_phase ? "prefill" : "decode";
      const serving::UnitSeries* series = result ? (prefill_phase ? &result->prefill : &result->decode) : nullptr;
      workload::StepBreakdown b;
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
        loads += " " + phase + ": " + format_number(g.decode_sequences) + " sequences decoding at " + format_number(g.decode_context_tokens) +
                 " tokens of context, " + format_number(g.prefill_sequences) + " prompts of " + format_number(g.prefill_tokens) +
                 " new tokens after " + format_number(g.prefill_context_tokens) + ", the unit's new tokens " + std::to_string(load.unit_tokens) +
                 (load.mtp_drafts > 0 ? ", " + std::to_string(load.mtp_drafts) + " MTP drafts verified" : "") + ";";
      }
      const std::string label = label_ + ": " + (disaggregated ? phase + " step" : std::string("step")) + ", the measured steps' mean";
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
      if (b.pipeline_s > 0) row("pipeline", "of the above: pipeline stages' hand-offs and the wait for the largest stage", b.pipeline_s);
      row("step", "the step", b.step_s);
      if (model->moe)
        r.rows.push_back({"breakdown/" + phase + "/expert_imbalance", label, "busiest expert GPU's routed tokens / the mean", "x", {}, expert_imbalance,
                          Basis::kSimulated});
    }
    if (!loads.empty())
      r.notes.push_back("Step breakdown: each measured step's parts (its gating DP rank's load) averaged over the steps, on the GPU (the engine's CPU "
                        "work is in the engine rows); the mean load (the trace's typical step):" + loads +
                        " compute at the rate it runs beside communication, summed over layers and micro-batches; the compute, the head and "
                        "the exposed communication add up to the step.");
  }

  // Where the measured requests' time to first token goes (means, adding up to TTFT's mean): the
  // engine's front end, the wait for a prefill rank, the prompt's steps (the engine's CPU work in
  // them by its share of those steps), the KV cache's transfer, the first decode step (or, under
  // an overlapping engine, the step after the prompt's) and the token's way out.
  void ttft_rows(StudyResult& r, const serving::ServingResult& result, const serving::ServingConfig& c) const {
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
    row("queueing", "waiting for a prefill rank", std::max(0.0, queued * k - result.way_in_s * 1e3));  // (a rounding's negative zero)
    row("prefill", "the prompt's steps", prefill * k);
    row("engine_cpu", "of the above: the engine's CPU work the steps waited for", prefill * k * cpu_share);
    if (disaggregated) row("kv_transfer", "the KV cache's transfer to decode and the wait for its pages", transfer * k);
    row("first_decode", disaggregated ? "the first decode step (and the wait for it)" : "the token's wait for the next step (an overlapping engine's)", first * k);
    row("emission", "the token's way out to the client", c.engine.emit_s * 1e3);
    row("ttft", "TTFT", ttft * k);
  }

  // Each request's times, as a benchmark client records them (Vidur's per-request metrics): one
  // row a request, in the order they arrived.
  static void write_requests_csv(const std::string& path, const serving::ServingResult& result) {
    std::string out =
        "request,arrival_s,input_tokens,output_tokens,cached_tokens,scheduling_delay_s,prefill_end_s,kv_transfer_end_s,first_token_s,finish_s,"
        "ttft_s,tpot_s,e2e_s,preemptions,measured\n";
    auto time = [](double t) { return t < 0 ? std::string() : format_number(t); };
    for (std::size_t i = 0; i < result.requests.size(); ++i) {
      const auto& q = result.requests[i];
      const bool done = q.finish_s >= 0;
      out += std::to_string(i) + "," + format_number(q.arrival_s) + "," + std::to_string(q.input_tokens) + "," + std::to_string(q.output_tokens) + "," +
             std::to_string(q.cached_tokens) + "," + (q.prefill_start_s < 0 ? std::string() : format_number(q.prefill_start_s - q.arrival_s)) + "," +
             time(q.prefill_end_s) + "," + time(q.transfer_end_s) + "," + time(q.first_token_s) + "," + time(q.finish_s) + "," +
             (q.first_token_s < 0 ? std::string() : format_number(q.first_token_s - q.arrival_s)) + "," +
             (done && q.output_tokens > 1 ? format_number((q.finish_s - q.first_token_s) / (q.output_tokens - 1)) : std::string()) + "," +
             (done ? format_number(q.finish_s - q.arrival_s) : std::string()) + "," + std::to_string(q.preemptions) + "," + (q.in_window ? "1" : "0") + "\n";
    }
    write_file_atomically(path, out);
  }

  // One level of a concurrency sweep, as benchmark clients report it: TTFT, TPOT and end-to-end
  // latency (mean and percentiles), requests/s, output tokens/s per GPU and per user.
  void client_rows(StudyResult& r, const serving::ServingConfig& c, int level, const serving::ServingResult* run = nullptr) const {
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
    for (const auto& [name, p, scale, unit] : {std::tuple{"ttft", &m.ttft_s, 1e3, "ms"}, std::tuple{"tpot", &m.tpot_s, 1e3, "ms"},
                                               std::tuple{"e2e", &m.e2e_s, 1.0, "s"}}) {
      const std::string upper = std::string(name) == "e2e" ? "end-to-end latency" : std::string(name) == "ttft" ? "TTFT" : "TPOT";
      row(std::string(name) + "_mean", upper + " mean", unit, p->mean * scale);
      row(std::string(name) + "_p50", upper + " p50", unit, p->p50 * scale);
      row(std::string(name) + "_p90", upper + " p90", unit, p->p90 * scale);
      row(std::string(name) + "_p99", upper + " p99", unit, p->p99 * scale);
    }
  }

  // Every request at 0 s (trtllm-bench's throughput mode): what the run took to serve them all.
  void throughput_mode_rows(StudyResult& r, const serving::ServingResult& result, const serving::ServingConfig& c) const {
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
    row("output_per_gpu", "output tokens/s per GPU over that time", "tokens/s", makespan_s > 0 ? output_tokens / makespan_s / gpus_of(c) : 0.0);
  }

  // What the engine's profile added to the GPU's times: the CPU work steps waited for, and the
  // request's way in (HTTP, tokenizer) and its tokens' way out (detokenize, stream).
  void engine_rows(StudyResult& r, const serving::ServingResult& result, const serving::EngineProfile& e, double window_s) const {
    auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
      r.rows.push_back({"engine/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
    };
    if (disaggregated) row("prefill_step_cpu", "prefill step: the engine's CPU work it waited for (mean)", "ms", result.prefill.engine_s * 1e3);
    row(disaggregated ? "decode_step_cpu" : "step_cpu", std::string(disaggregated ? "decode step" : "step") + ": the engine's CPU work it waited for (mean)",
        "ms", result.decode.engine_s * 1e3);
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
    for (const auto& [name, part] : {std::pair{"schedule", e.schedule}, std::pair{"prepare", e.prepare}, std::pair{"sample", e.sample},
                                     std::pair{"outputs", e.outputs}})
      if (part.fixed_s > 0 || part.per_sequence_s > 0)
        parts += std::string(parts.empty() ? "" : ", ") + name + " " + format_number(part.fixed_s * 1e3) + " ms + " + format_number(part.per_sequence_s * 1e6) + " us";
    r.notes.push_back("Engine " + e.name + (e.version.empty() ? "" : " " + e.version) + ": " + format_number(e.step_cpu_s * 1e3) + " ms + " +
                      format_number(e.step_cpu_per_sequence_s * 1e6) + " us a sequence of CPU work a step (" + parts + "), " +
                      (e.overlap_scheduling ? "overlapped with the GPU's step (a step takes the longer of the two, and " + format_number(e.overlap_exposed_s * 1e3) +
                                                  " ms more it still waits for" + (e.tokens_a_step_later ? "; its tokens reach the client after the next step)" : ")")
                                            : std::string("between GPU steps (added to each)")) +
                      "; " + format_number(e.frontend_s * 1e3) + " ms and " + format_number(e.tokenize_s_per_token * 1e6) +
                      " us a prompt token on the front end's one process before a request reaches the engine, " + format_number(e.stream_s_per_token * 1e6) +
                      " us of its work a streamed token, and " + format_number(e.emit_s * 1e3) +
                      " ms from a step's end to the client holding its token (data/engines, each figure with its source).");
  }

  void add_rows(StudyResult& r, const std::string& prefix, const serving::ServingMetrics& m, const serving::ServingResult& result) const {
    const std::string& label = label_;
    auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
      r.rows.push_back({prefix + id, label, metric, unit, {}, v, Basis::kSimulated});
    };
    const double gpn = node_gpus();
    const double prefill_nodes = disaggregated ? double(prefill.units) * prefill.nodes : double(decode.units) * decode.nodes;
    const double decode_nodes = double(decode.units) * decode.nodes;
    row("requests_per_s", "requests/s arriving", "req/s", m.request_rate_per_s);
    row("input_per_prefill_node", std::string(disaggregated ? "input tokens/s per prefill node" : "input tokens/s per node") + " (cache hits included)",
        "tokens/s", m.input_tokens_per_s / prefill_nodes);
    row("computed_input_per_prefill_node", std::string(disaggregated ? "input tokens/s per prefill node" : "input tokens/s per node") + " computed (hits excluded)",
        "tokens/s", m.computed_input_tokens_per_s / prefill_nodes);
    row("output_per_decode_node", disaggregated ? "output tokens/s per decode node" : "output tokens/s per node", "tokens/s", m.output_tokens_per_s / decode_nodes);
    row("output_per_gpu", "output tokens/s per GPU (all GPUs)", "tokens/s", m.output_tokens_per_s / ((prefill_nodes * (disaggregated ? 1 : 0) + decode_nodes) * gpn));
    row("user_tokens_per_s_p50",
        "tokens/s per user, p50" + std::string(std::isnan(m.user_tokens_per_s.p50) ? " (not defined: no measured request finished its answer)" : ""), "tokens/s",
        m.user_tokens_per_s.p50);
    // Unfinished requests count by their age when the run stopped: the figures are lower bounds.
    const std::string bound = m.unfinished > 0 ? " (at least: " + std::to_string(m.unfinished) + " unfinished requests counted by their age at " +
                                                     format_number(m.stopped_s) + " s)"
                                               : "";
    for (const auto& [name, p, scale, unit] : {std::tuple{"ttft", &m.ttft_s, 1.0, "s"}, std::tuple{"tpot", &m.tpot_s, 1e3, "ms"},
                                               std::tuple{"e2e", &m.e2e_s, 1.0, "s"}}) {
      const std::string upper = std::string(name) == "e2e" ? "end-to-end latency" : std::string(name) == "ttft" ? "TTFT" : "TPOT";
      const std::string defined = std::isnan(p->p50) ? " (not defined: no measured request has one)" : bound;
      row(std::string(name) + "_p50", upper + " p50" + defined, unit, p->p50 * scale);
      row(std::string(name) + "_p90", upper + " p90" + defined, unit, p->p90 * scale);
      row(std::string(name) + "_p99", upper + " p99" + defined, unit, p->p99 * scale);
    }
    // Inter-token latency per streamed chunk, step by step: a decode token that waited behind a
    // long prefill chunk shows here, where TPOT spreads it over its request.
    const serving::PercentileSketch& itl = result.inter_token_s;
    const std::string itl_defined = itl.count() == 0 ? " (not defined: no measured step gave a sequence a token after its first)" : "";
    for (int p : {50, 90, 99})
      row("itl_p" + std::to_string(p), "inter-token latency p" + std::to_string(p) + ", per streamed chunk" + itl_defined, "ms", itl.percentile(p) * 1e3);
    row("decode_batch", disaggregated ? "decode sequences per DP rank (mean over steps)" : "sequences per DP rank and step (mean)", "seqs", result.decode.mean_batch);
    row("decode_step", disaggregated ? "decode step (mean)" : "step (mean)", "ms", result.decode.mean_step_s * 1e3);
    row("decode_rank_imbalance", "the gating DP rank's new tokens / the mean (decode steps)", "x", result.decode.imbalance);
    row("kv_use_max", "KV pages in use, busiest rank, max", "%", 100 * result.decode.max_kv_use);
    row("queue_mean", "requests waiting (mean over steps)", "reqs", result.decode.mean_queue + result.prefill.mean_queue);
    row("preemptions", "preemptions", "count", double(result.preemptions));
    row("finished", "measured requests finished", "%", m.measured > 0 ? 100.0 * double(m.finished) / double(m.measured) : 0.0);
    row("unfinished", "measured requests unfinished when the run stopped", "count", double(m.unfinished));
    row("backlog_growth", "requests waiting for a first token: growth over the window's second half", "req/s", m.offered_per_s - m.served_per_s);
    row("overloaded", "arrivals exceed what the deployment serves (1) or not (0)", "", m.overloaded ? 1.0 : 0.0);
  }

  // A trace's requests replayed at `scale` (not 1) times its pace.
  std::vector<serving::Request> requests_at(double scale, double duration_s) const {
    std::vector<serving::Request> scaled;
    for (auto q : whole_trace)
      if ((q.arrival_s /= scale) < duration_s) scaled.push_back(std::move(q));
    return scaled;
  }

  // `clients`: closed-loop clients in place of the workload's arrivals (0: its arrivals).
  serving::ServingResult simulate(const serving::ServingConfig& c, double scale, const char* progress = nullptr, int clients_count = 0) const {
    std::optional<core::ProgressBar> bar;
    if (progress) bar.emplace(progress, c.duration_s);
    const auto update = [&](double t) {
      if (bar) bar->update(std::min(t, c.duration_s));
    };
    return within_request_limit([&] {
      // The engine's front end before the simulation, its emission after.
      auto through_engine = [&](serving::RequestSource& sent) {
        serving::EngineFrontEnd front(sent, c.engine, c.warmup_s, c.duration_s);
        serving::ServingResult result = serving::simulate_serving(front, c, update);
        serving::apply_token_path(result, c.engine);
        result.way_in_s = front.mean_way_in_s();
        result.front_end_behind = front.behind();
        return result;
      };
      if (clients_count > 0 && capped) {
        serving::GeneratedSource arrivals(*generated);
        serving::CappedSource source(arrivals, clients_count, c.duration_s);
        return through_engine(source);
      }
      if (clients_count > 0) {
        serving::ClientLoop loop = clients;
        loop.clients = clients_count;
        serving::ClosedLoopSource source(*generated, loop);
        return through_engine(source);
      }
      if (generated) {  // drawn as the run goes, at `scale` times the rate
        serving::GeneratedWorkload g = *generated;
        g.arrivals.rate_per_s *= scale;
        if (!g.arrivals.profile.empty()) g.arrivals.profile = g.arrivals.profile.scaled(scale);
        serving::GeneratedSource drawn(g);
        serving::PrefetchedSource source(drawn);  // drawn on the second core
        return through_engine(source);
      }
      const std::vector<serving::Request> scaled = scale == 1 ? std::vector<serving::Request>{} : requests_at(scale, c.duration_s);
      serving::ListedSource source(scale == 1 ? trace : scaled);
      return through_engine(source);
    }, clients_count > 0 && !capped);
  }

  bool meets(const serving::ServingResult& res, const serving::ServingMetrics& m) const {
    return res.unfinished == 0 && m.finished == m.measured && (slo.ttft_s <= 0 || m.ttft_s.p90 <= slo.ttft_s) &&
           (slo.tpot_s <= 0 || m.tpot_s.p90 <= slo.tpot_s);
  }

  // The highest arrival rate whose TTFT p90 and TPOT p90 stay within the SLO on `c`: the
  // workload's arrivals compressed by a factor found by bisection (geometric; 10 runs).
  struct Found {
    bool any = false;
    double rate_per_s = 0;
    serving::ServingMetrics at;  // at that rate, or (none) at the lowest tried
  };
  Found find_max_rate(const serving::ServingConfig& c) const {
    auto measure = [&](double scale, serving::ServingMetrics& m) {
      const auto res = simulate(c, scale);
      m = serving::serving_metrics(res, c, slo);
      return meets(res, m);
    };
    Found f;
    double lo = 1.0 / 64, hi = search_max_scale;
    if (!measure(lo, f.at)) {
      f.rate_per_s = base_rate() * lo;
      return f;
    }
    serving::ServingMetrics scratch;
    if (measure(hi, scratch)) lo = hi;
    else
      for (int i = 0; i < 10; ++i) {
        const double mid = std::sqrt(lo * hi);
        (measure(mid, scratch) ? lo : hi) = mid;
      }
    f.any = true;
    measure(lo, f.at);
    f.rate_per_s = base_rate() * lo;
    return f;
  }

  double node_gpus() const { return cluster.cluster.gpus_per_node; }
  double gpus_of(const serving::ServingConfig& c) const {
    const double gpn = node_gpus();
    return double(c.decode_units) * decode.nodes * gpn + (disaggregated ? double(c.prefill_units) * prefill.nodes * gpn : 0.0);
  }

  void search_rows(StudyResult& r, const serving::ServingConfig& c) const {
    const Found f = find_max_rate(c);
    if (!f.any) {
      r.rows.push_back({"slo/max_rate", label_, "highest request rate within the SLO (none: even the lowest tried misses it)", "req/s", {}, 0.0,
                        Basis::kSimulated});
      r.notes.push_back("No load meets the SLO: at " + format_number(f.rate_per_s) + " requests/s TTFT p90 is " + format_number(f.at.ttft_s.p90) +
                        " s and TPOT p90 " + format_number(f.at.tpot_s.p90 * 1e3) + " ms.");
      return;
    }
    // The rate offered, as serve-plan's one unit reports it (what arrived in the window differs by chance).
    r.rows.push_back({"slo/max_rate", label_, "highest request rate within the SLO", "req/s", {}, f.rate_per_s, Basis::kSimulated});
    r.rows.push_back({"slo/gpus", label_, "GPUs of the deployment", "GPUs", {}, gpus_of(c), Basis::kInput});
    r.rows.push_back({"slo/max_output_per_gpu", label_, "output tokens/s per GPU at that rate", "tokens/s", {}, f.at.output_tokens_per_s / gpus_of(c),
                      Basis::kSimulated});
    r.rows.push_back({"slo/ttft_p90_at_max", label_, "TTFT p90 at that rate", "s", {}, f.at.ttft_s.p90, Basis::kSimulated});
    r.rows.push_back({"slo/tpot_p90_at_max", label_, "TPOT p90 at that rate", "ms", {}, f.at.tpot_s.p90 * 1e3, Basis::kSimulated});
  }

  // What one unit of each kind serves within the SLO, the other kind given unlimited capacity
  // (disaggregated), or one colocated unit.
  struct UnitRates {
    bool any = false;
    double prefill = 0, decode = 0;  // requests/s (colocated: `decode` is the unit's)
    std::string miss;                // where none: the kind that misses even alone
  };
  UnitRates unit_rates(const serving::ServingConfig& c) const {
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

  // Units that serve `load` together within the SLO: each kind's rate alone divided into it, then
  // simulated together and, while the whole misses, a unit more of the phase that binds (a prefill
  // unit near its limit also waits for decode pages), up to kMaxPlanAdditions.
  struct Together {
    serving::ServingConfig config;
    serving::ServingMetrics metrics;
    bool met = false;
    int first_prefill = 0, first_decode = 0;  // from the rates alone
    int added() const { return config.prefill_units - first_prefill + config.decode_units - first_decode; }
  };
  Together fit_together(const serving::ServingConfig& c, const UnitRates& rates, double load, const std::string& pointer) const {
    Together t;
    t.config = c;
    if (disaggregated) t.config.prefill_units = units_for(load, rates.prefill, prefill, pointer);
    t.config.decode_units = units_for(load, rates.decode, decode, pointer);
    t.first_prefill = t.config.prefill_units;
    t.first_decode = t.config.decode_units;
    serving::ServingResult at_load = simulate(t.config, load / base_rate());
    t.metrics = serving::serving_metrics(at_load, t.config, slo);
    for (int tries = 0; tries < kMaxPlanAdditions && !meets(at_load, t.metrics); ++tries) {
      if (!disaggregated || serving::decode_binds(at_load, t.metrics, slo)) t.config.decode_units = units_for(load, load / (t.config.decode_units + 1), decode, pointer);
      else t.config.prefill_units = units_for(load, load / (t.config.prefill_units + 1), prefill, pointer);
      at_load = simulate(t.config, load / base_rate());
      t.metrics = serving::serving_metrics(at_load, t.config, slo);
    }
    t.met = meets(at_load, t.metrics);
    return t;
  }

  std::string additions_note(const Together& t) const {
    const int added = t.added();
    const std::string more = !t.met ? std::to_string(added) + " more did not meet it: the SLO is not met at this load"
                             : added == 1 ? "one more was needed" : std::to_string(added) + " more were needed";
    return "each kind's rate alone asked for " + (disaggregated ? std::to_string(t.first_prefill) + " prefill and " : std::string()) +
           std::to_string(t.first_decode) + (disaggregated ? " decode" : "") + " units; together they missed the SLO, and " + more +
           " (each added to the phase that binds: decode where TPOT misses or requests wait longer for decode than for prefill).";
  }

  // serve-plan: what one unit of each kind serves within the SLO, the other kind given unlimited
  // capacity; the ratio that balances them; the units a load needs, checked by simulating them
  // together; and throughput per GPU against per-user speed over decode batch caps.
  void plan_rows(StudyResult& r, const serving::ServingConfig& c) const {
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
      r.notes.push_back("Plan: no load meets the SLO on one " + rates.miss + (disaggregated ? " even with the other phase unlimited." : "."));
      return;
    }
    const double prefill_rate = rates.prefill;  // what one prefill unit serves (disaggregated)
    if (disaggregated) {
      row("prefill_unit_rate", "one prefill unit: requests/s within the TTFT SLO (decode unlimited)", "req/s", rates.prefill);
      row("decode_unit_rate", "one decode unit: requests/s within the SLO (prefill unlimited)", "req/s", rates.decode);
      row("prefill_per_decode", "prefill units per decode unit that balance them", "units", rates.decode / rates.prefill);
      row("prefill_to_decode_nodes", "prefill nodes per decode node that balance them", "nodes", rates.decode / rates.prefill * prefill.nodes / decode.nodes);
    } else {
      row("unit_rate", "one unit: requests/s within the SLO", "req/s", rates.decode);
    }
    const Together t = fit_together(c, rates, load, plan_rate > 0 ? "/plan/rate_per_s" : "");
    const serving::ServingConfig& planned = t.config;
    const auto& m = t.metrics;
    const bool met = t.met;
    const std::string for_load = "for " + format_number(load) + " req/s" +
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
        if (expected_requests(2 * scale) > double(serving::kMaxRequests)) break;
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
      const double prefill_gpus = disaggregated ? finished_per_s(res, cc) / prefill_rate * prefill.nodes * node_gpus() : 0.0;
      const std::string at = "batch cap " + std::to_string(cap) + ": ";
      row("cap_" + std::to_string(cap) + "/user_tokens_per_s", at + "tokens/s per user, p50", "tokens/s", user_p50);
      row("cap_" + std::to_string(cap) + "/output_per_gpu", at + "output tokens/s per GPU" + (disaggregated ? " (with the prefill GPUs that keep up)" : ""),
          "tokens/s", cm.output_tokens_per_s / (decode_gpus + prefill_gpus));
      row("cap_" + std::to_string(cap) + "/batch", at + "sequences per DP rank (mean)", "seqs", res.decode.mean_batch);
      // The same breakdown as the run's: a decode step at this cap's mean load.
      if (res.decode.steps > 0) {
        const auto b = workload::step_breakdown(cc.decode.cost->step(res.decode.mean_load));
        row("cap_" + std::to_string(cap) + "/step", at + "decode step at its mean load", "ms", b.step_s * 1e3);
        row("cap_" + std::to_string(cap) + "/attention", at + "of which attention", "ms", b.attention_s * 1e3);
        row("cap_" + std::to_string(cap) + "/ffn", at + (model->moe ? "of which experts, gate and dense FFNs" : "of which FFNs"), "ms",
            (b.routed_experts_s + b.shared_expert_s + b.gate_s + b.dense_ffn_s) * 1e3);
        row("cap_" + std::to_string(cap) + "/exposed_comm", at + "of which communication exposed", "ms", b.exposed_comm_s * 1e3);
      }
    }
    r.notes.push_back("Plan: each unit's rate is the highest whose TTFT p90 and TPOT p90 meet the SLO with the other phase unlimited (prompts "
                      "prefilled the moment they arrive, or requests done once their KV cache leaves prefill); the units a load needs are "
                      "each kind's rate divided into it, rounded up, then simulated together. The throughput curve keeps one decode unit "
                      "full (arrivals doubled until its DP ranks reach 90% of the cap or queue) for " + format_number(config.duration_s) +
                      " s at each cap.");
  }

  // A plan for the day (serve-plan on a load profile): the fewest node-hours that keep the SLO
  // interval by interval under the policy's bounds, against a fixed fleet sized for the peak.
  // Each kind's rate per unit is found on the load held flat (one unit's share of the peak, over
  // the plan's window); the units meeting the SLO together are found by simulation at the day's
  // trough, midway and peak; each interval takes the units its highest rate needs at the rates
  // alone, scaled by what running together added, interpolated in load between those three.
  void day_plan_rows(StudyResult& r, const serving::ServingConfig& fleet_config) const {
    auto row = [&](const std::string& id, const std::string& metric, const std::string& unit, double v) {
      r.rows.push_back({"plan/" + id, label_, metric, unit, {}, v, Basis::kSimulated});
    };
    const serving::LoadProfile& profile = generated->arrivals.profile;
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
    flat.generated->arrivals.rate_per_s = std::max(peak / std::max(1, fleet_config.decode_units), 50 * kSearchMaxScale / (day_window_s - day_warmup_s));
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
      r.notes.push_back("Plan: no load meets the SLO on one " + rates.miss + (disaggregated ? " even with the other phase unlimited." : "."));
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
      auto added = [&](const Together& t) { return double(prefill_units ? t.config.prefill_units : t.config.decode_units) / (t.*first); };
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
    for (auto [policy, units] : {std::pair{&fleet_config.autoscaling.prefill, &Step::prefill}, std::pair{&fleet_config.autoscaling.decode, &Step::decode}}) {
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
    const double node_s = plan.node_s, prefill_node_s = plan.prefill_node_s, most_nodes = plan.most_nodes, fewest_nodes = plan.fewest_nodes;
    const double hours = day_s / 3600;
    const double peak_nodes = most_nodes;  // a fixed fleet of the plan's most nodes, within the policy's bounds
    const double gpn = node_gpus();

    if (disaggregated) {
      row("prefill_unit_rate", "one prefill unit: requests/s within the TTFT SLO (decode unlimited)", "req/s", rates.prefill);
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
    row("day/saved_vs_peak", "node-hours saved against the fleet sized for the peak", "%", 100 * (1 - node_s / 3600 / (peak_nodes * hours)));
    row("day/gpu_hours", "GPU-hours the plan uses", "GPU-h", node_s * gpn / 3600);
    if (capped > 0) {
      row("day/unbounded_node_hours", "node-hours that keep the SLO all day without the policy's max_units", "node-h", unbounded.node_s / 3600);
      row("day/unbounded_peak_nodes", "nodes that keep the SLO at the peak without the policy's max_units", "nodes", unbounded.most_nodes);
    }
    const double requests = profile.expected(0, day_s);
    const double output = requests * generated->output.mean, input = requests * generated->input.mean;
    row("day/output_tokens", "output tokens (the lengths' means)", "billion", output / 1e9);
    if (usd_per_gpu_hour > 0) {
      const double usd = node_s * gpn / 3600 * usd_per_gpu_hour;
      row("day/usd", "the plan's GPU cost at " + format_number(usd_per_gpu_hour) + " $/GPU-hour", "$", usd);
      row("day/peak_sized_usd", "a fleet sized for the peak, the same day", "$", peak_nodes * hours * gpn * usd_per_gpu_hour);
      if (disaggregated) {
        row("day/per_million_input", "cost per million input tokens (the prefill nodes' share)", "$", prefill_node_s * gpn / 3600 * usd_per_gpu_hour / (input / 1e6));
        row("day/per_million_output", "cost per million output tokens (the decode nodes' share)", "$",
            (node_s - prefill_node_s) * gpn / 3600 * usd_per_gpu_hour / (output / 1e6));
      } else {
        row("day/per_million_tokens", "cost per million tokens, input and output", "$", usd / ((input + output) / 1e6));
      }
    }
    hour_rows(row, n, step_s, hours, "nodes the plan holds (mean)", "highest request rate of its intervals (mean)", [&](std::size_t i) {
      return std::pair{(steps[i].prefill * pn + steps[i].decode * dn) * step_s, load[i] * step_s};
    });
    std::string csv = std::string("start_h,end_h,load_per_s,") + (disaggregated ? "prefill_units,decode_units" : "units") + ",nodes\n";
    for (std::size_t i = 0; i < n; ++i)
      csv += format_number(double(i) * step_s / 3600) + "," + format_number(std::min(day_s, double(i + 1) * step_s) / 3600) + "," + format_number(load[i]) + "," +
             (disaggregated ? std::to_string(steps[i].prefill) + "," : std::string()) + std::to_string(steps[i].decode) + "," +
             format_number(steps[i].prefill * pn + steps[i].decode * dn) + "\n";
    r.series_csv = csv;

    r.notes.push_back("Plan for the day: each " + format_number(step_s) + " s interval holds the units its highest request rate needs: each kind's rate "
                      "alone divided into it, rounded up, times the units more that all units simulated together needed at the day's trough (" +
                      format_number(trough) + " req/s), midway and at its peak (" + format_number(peak) + " req/s), as a share interpolated in load between them; each kind's rate alone from "
                      "the load held flat, " + format_number(day_window_s) + " s runs measured after " + format_number(day_warmup_s) + " s. Units added start booting the policy's startup time ahead of the "
                      "interval that needs them (a perfect forecast: the fewest node-hours a policy with these bounds can reach); units removed are "
                      "freed at the interval's start, their drain not counted. A phase the policy does not scale holds the day's most units all day. "
                      "The fleet sized for the peak holds the plan's most nodes all day. The policy's own day is `codesim run` on this scenario.");
    if (capped > 0)
      r.notes.push_back("Plan: in " + std::to_string(capped) + " interval(s) a phase needed more units than the policy's max_units allow; it holds the most "
                        "allowed there, and the SLO is at risk.");
    r.notes.push_back(deployment_note());
  }

  // The units of a kind that serve `load` at `unit_rate` each, held to serving::kMaxRanks.
  // `pointer`: the field that gave the load ("": the unit's own count).
  int units_for(double load, double unit_rate, const UnitSpec& u, const std::string& pointer) const {
    const double units = std::ceil(load / unit_rate - 1e-9);
    check_rank_count(pointer.empty() ? u.pointer + "/units" : pointer,
                     format_number(load) + " req/s at " + format_number(unit_rate) + " req/s a unit (" + short_number(units) + " units of " +
                         std::to_string(u.config.ranks()) + " DP ranks)",
                     units * u.config.ranks());
    return static_cast<int>(units);
  }

  // Requests that finished decoding per second of the measured window.
  static double finished_per_s(const serving::ServingResult& res, const serving::ServingConfig& c) {
    long long done = 0;
    for (const auto& q : res.requests)
      if (q.finish_s >= c.warmup_s && q.finish_s <= c.duration_s) ++done;
    return double(done) / (c.duration_s - c.warmup_s);
  }

  std::string deployment_note() const {
    auto unit_text = [&](const char* what, const UnitSpec& u) {
      const auto& d = u.config.deployment;
      const auto& mem = u.config.memory;
      std::string s = std::to_string(u.units) + " " + what + " unit" + (u.units > 1 ? "s" : "") + " of " + std::to_string(d.gpus * d.pipeline_stages) + " " +
                      cluster.gpu->name + " (" + format_number(u.nodes) + " node" + (u.nodes == 1 ? "" : "s") + "): attention " +
                      (d.attention_tp == 1 ? "data-parallel (DP" + std::to_string(d.gpus) + ")"
                                           : "TP" + std::to_string(d.attention_tp) + " x DP" + std::to_string(d.attention_dp()));
      if (d.pipeline_stages > 1)
        s += ", pipeline-parallel PP" + std::to_string(d.pipeline_stages) + " (stages of " + std::to_string(d.gpus) + " GPUs and at most " +
             std::to_string((model->layers + d.pipeline_stages - 1) / d.pipeline_stages) + " layers, " + std::to_string(d.pipeline_node_crossings) + " of " +
             std::to_string(d.pipeline_stages - 1) + " boundaries between nodes; " + std::to_string(d.pipeline_stages) +
             " batches in flight per DP rank, one per stage, each with its own requests and KV cache as vLLM's virtual engines run them)";
      if (model->moe && d.expert_tp)
        s += ", routed experts tensor-parallel over " + std::to_string(d.routed_gpus) + " GPUs (each holds 1/" + std::to_string(d.routed_gpus) +
             " of every expert; the unit's tokens gathered to them and the outputs reduce-scattered, no all-to-all)";
      else if (model->moe)
        s += ", routed experts EP" + std::to_string(d.routed_gpus) + " with " + std::to_string(d.redundant_experts) + " redundant (" +
             std::to_string((model->moe->routed_experts + d.redundant_experts) / d.routed_gpus) + " per GPU, placed as EPLB's " + (workload::eplb_hierarchical(model->moe->groups, d.routed_gpus, d.gpus_per_node) ? "hierarchical" : "global") + " policy does)" +
             (model->moe->shared_experts == 0 ? std::string(", no shared expert")
                                               : ", shared expert " + (d.dedicated_shared && d.shared_gpus() > 0 ? "on " + std::to_string(d.shared_gpus()) + " dedicated GPUs"
                                                                                                                  : std::string("on every GPU"))) +
             ", " + (d.direct_comm ? "direct (IBGDA) all-to-all" : "all-to-all over IB once per node then NVLink") + "; " +
             describe_overlap(d, std::string(what) == "prefill") + "; " + std::to_string(d.comm_sms) + " of " + std::to_string(d.sms) +
             " SMs held by the communication kernels";
      s += ", " + std::to_string(d.micro_batches) + " micro-batch" + (d.micro_batches > 1 ? "es" : "") + "; at most " +
           std::to_string(u.config.max_running) + " sequences and " + std::to_string(u.config.max_batch_tokens) +
           " new tokens per DP rank and step. Per GPU: " + gb(mem.weight_bytes) + " GB weights, " + gb(mem.activation_bytes) +
           " GB activations, " + gb(mem.reserve_bytes) + " GB reserve, " + gb(mem.kv_bytes) + " GB KV cache = " +
           kv_capacity_text(mem, d.pipeline_stages) + ".";
      return s;
    };
    std::string s = model->display_name + ", " + (disaggregated ? "prefill and decode disaggregated: " : "prefill and decode colocated (chunked prefill): ");
    if (disaggregated) s += unit_text("prefill", prefill) + " ";
    s += unit_text(disaggregated ? "decode" : "colocated", decode);
    if (disaggregated)
      s += " KV caches go to decode over " + std::to_string(config.kv_senders) + " NIC(s) of the prefill rank at " + format_number(config.kv_transfer_Bps / 1e9) +
           " GB/s each, one at a time on the NICs of the ranks at either end (the EP all-to-all's share of them not counted), the prefill rank "
           "keeping its pages until the transfer ends; the decode unit takes a request once it has pages for it, and its "
           "first step delivers the first token (TTFT = queue + prefill + transfer + first decode step).";
    s += std::string(" Router: ") + router_name_ + "; preemption by " + (config.preemption == serving::Preemption::kSwap ? "swapping to host memory" : "recomputation") +
         "; KV pages of " + std::to_string(config.page_tokens) + " tokens.";
    if (config.mtp_drafts > 0) {
      s += " MTP: each decode step verifies " + std::to_string(config.mtp_drafts) + " drafted token" + (config.mtp_drafts > 1 ? "s" : "") +
           " per sequence (the MTP module run as many times), accepted with probability";
      for (std::size_t i = 0; i < config.mtp_acceptance.size(); ++i) s += (i ? ", " : " ") + format_number(config.mtp_acceptance[i]);
      s += config.mtp_drafts > 1 ? " by position, each once the ones before it are." : ".";
    } else if (model->mtp_modules > 0) {
      s += " MTP: off (the model has an MTP module; give /deployment/mtp_acceptance to use it).";
    }
    return s;
  }

 public:
  std::string router_name_;
};

serving::LengthDistribution parse_length(core::JsonReader& w, const std::string& key, int min, int max_tokens) {
  serving::LengthDistribution l;
  const nlohmann::json* raw = w.raw(key);
  if (raw && raw->is_number()) {
    l.mean = w.positive_integer(key, max_tokens);
    if (l.mean < min) throw core::InputError(w.pointer_of(key), format_number(l.mean) + " is not allowed; at least " + std::to_string(min));
    l.min = l.max = static_cast<int>(l.mean);
    return l;
  }
  core::JsonReader d = w.object(key);
  const std::string kind = d.one_of("distribution", {"fixed", "uniform", "lognormal", "exponential"});
  l.kind = kind == "fixed" ? serving::LengthKind::kFixed : kind == "uniform" ? serving::LengthKind::kUniform
           : kind == "lognormal" ? serving::LengthKind::kLognormal : serving::LengthKind::kExponential;
  l.min = static_cast<int>(d.positive_integer("min", min, max_tokens));
  l.max = static_cast<int>(d.positive_integer("max", max_tokens, max_tokens));
  if (l.max < l.min) throw core::InputError(d.pointer_of("max"), std::to_string(l.max) + " is not allowed; at least min (" + std::to_string(l.min) + ")");
  if (l.kind != serving::LengthKind::kUniform) l.mean = d.positive_number("mean");
  if (l.kind == serving::LengthKind::kFixed) l.min = l.max = static_cast<int>(std::llround(l.mean));
  if (l.kind == serving::LengthKind::kLognormal) l.cv = d.positive_number("cv");
  d.finish();
  return l;
}

// A unit's size: `gpus`, or `nodes` (a share of one node allowed, e.g. 0.667 of a 72-GPU rack).
// Below a node it must fit in one; above, it is whole nodes.
int unit_gpus(core::JsonReader& u, int node_gpus) {
  if (u.has("gpus") && u.has("nodes"))
    throw core::InputError(u.pointer_of("nodes"), "is not allowed beside gpus; give the unit's size one way");
  int gpus = 0;
  std::string at;
  if (u.has("gpus")) {
    at = u.pointer_of("gpus");
    gpus = static_cast<int>(u.positive_integer("gpus", node_gpus, 2048));
  } else {
    at = u.pointer_of("nodes");
    const double nodes = u.positive_number("nodes", 1.0);
    const double whole = std::round(nodes * node_gpus);
    if (whole < 1 || std::abs(nodes * node_gpus - whole) > 0.05)
      throw core::InputError(at, core::describe_number(nodes) + " is not allowed; a number of nodes that makes whole GPUs (" + std::to_string(node_gpus) +
                                     " a node), or give gpus");
    if (whole > 2048)
      throw core::InputError(at, core::describe_number(nodes) + " nodes (" + format_number(whole) + " GPUs) is not allowed; a unit has at most 2048 GPUs");
    gpus = static_cast<int>(whole);
  }
  if (gpus > node_gpus && gpus % node_gpus != 0)
    throw core::InputError(at, std::to_string(gpus) + " GPUs is not allowed; a unit larger than a node (" + std::to_string(node_gpus) +
                                   " GPUs) is whole nodes");
  return gpus;
}

// A rate over the run: `hourly` requests/s for each hour, or a `diurnal` curve.
serving::LoadProfile parse_profile(core::JsonReader& r, double duration_s) {
  if (r.has("hourly") == r.has("diurnal")) throw core::InputError(r.pointer(), "give hourly (requests/s for each hour) or diurnal (peak, trough, peak_hour), one of them");
  serving::LoadProfile profile;
  if (r.has("hourly")) {
    const auto rates = r.number_list("hourly", {0, 1e9});
    if (double(rates.size()) * 3600 < duration_s)
      throw core::InputError(r.pointer_of("hourly"), std::to_string(rates.size()) + " hours (" + format_number(double(rates.size()) * 3600) +
                                                          " s) do not cover duration_s (" + format_number(duration_s) + " s); give a rate for each hour of the run");
    profile = serving::LoadProfile(rates, 3600);
  } else {
    core::JsonReader d = r.object("diurnal");
    const double peak = d.number_in("peak", 1e-9, 1e9);  // as an hourly rate is bounded
    const double trough = d.number_in("trough", 0, 1e9);
    if (trough > peak)
      throw core::InputError(d.pointer_of("trough"), format_number(trough) + " is not allowed; at most the peak (" + format_number(peak) + ")");
    const double peak_hour = d.non_negative_number("peak_hour", 14.0);
    if (peak_hour >= 24) throw core::InputError(d.pointer_of("peak_hour"), format_number(peak_hour) + " is not allowed; an hour from 0 to below 24");
    d.finish();
    profile = serving::LoadProfile::diurnal(peak, trough, peak_hour, duration_s);
  }
  r.finish();
  return profile;
}

// A generated workload's arrivals: a rate (Poisson, or gamma with a burstiness), or "inf": `count`
// requests all at 0 s, as a benchmark's throughput mode sends them.
// `streamed`: a fleet's records are streamed, so any number of requests is allowed.
serving::ArrivalProcess parse_arrivals(core::JsonReader& w, double duration_s, bool streamed) {
  serving::ArrivalProcess p;
  core::JsonReader a = w.object("arrivals");
  if (a.has("rate_per_s") && a.raw("rate_per_s")->is_string()) {
    const std::string rate = a.string("rate_per_s");
    if (rate != "inf")
      throw core::InputError(a.pointer_of("rate_per_s"), "'" + rate.substr(0, 40) + "' is not allowed; a number of requests/s, or \"inf\" (every request at 0 s, with count)");
    p.rate_per_s = std::numeric_limits<double>::infinity();
    p.count = a.positive_integer("count", serving::kMaxRequests);
    a.finish();
    return p;
  }
  const nlohmann::json* rate = a.raw("rate_per_s");
  if (rate && rate->is_object()) {  // a rate over the run
    core::JsonReader profile = a.object("rate_per_s");
    p.profile = parse_profile(profile, duration_s);
    p.rate_per_s = p.profile.expected(0, duration_s) / duration_s;  // the mean
    if (!(p.rate_per_s > 0)) throw core::InputError(profile.pointer(), "no request arrives within duration_s: give a rate above 0 somewhere");
  } else {
    p.rate_per_s = a.positive_number("rate_per_s");  // a huge one is refused by its request count below
  }
  p.burstiness = a.positive_number("burstiness", 1.0);
  if (p.burstiness < serving::kMinBurstiness)
    throw core::InputError(a.pointer_of("burstiness"), core::describe_number(p.burstiness) + " is not allowed; at least " +
                                                          format_number(serving::kMinBurstiness) + " (below it the gaps between arrivals round to 0 s)");
  // The pointer of the outlier: the duration when the rate alone would fit in the default 60 s.
  if (!streamed)
    check_request_count(p.rate_per_s * 60 <= double(serving::kMaxRequests) ? w.pointer_of("duration_s") : a.pointer_of("rate_per_s"),
                        format_number(p.rate_per_s) + " req/s over duration_s " + format_number(duration_s) + " s", p.rate_per_s * duration_s);
  a.finish();
  return p;
}

// Closed-loop clients: one number, or a list of them (a concurrency sweep, each level its own run).
std::vector<int> parse_client_levels(core::JsonReader& w) {
  constexpr int kMaxClients = 1'000'000;
  const nlohmann::json* raw = w.raw("clients");
  const std::string what = "a whole number of clients from 1 to 1000000, or a list of them";
  std::vector<int> levels;
  auto level = [&](const nlohmann::json& v, const std::string& at) {
    // A whole number written as a float (64.0, as Python's JSON may write it) counts as one.
    const bool whole = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>());
    if (!whole || v.get<double>() < 1 || v.get<double>() > kMaxClients) throw core::InputError(at, core::describe(v) + " is not allowed; " + what);
    const int n = static_cast<int>(v.get<double>());
    if (std::find(levels.begin(), levels.end(), n) != levels.end())
      throw core::InputError(at, core::describe(v) + " is not allowed; a level given twice (each level is its own run and rows)");
    levels.push_back(n);
  };
  if (raw->is_array()) {
    if (raw->empty() || raw->size() > 64) throw core::InputError(w.pointer_of("clients"), core::describe(*raw) + " is not allowed; 1 to 64 levels, each " + what);
    for (std::size_t i = 0; i < raw->size(); ++i) level((*raw)[i], w.pointer_of("clients") + "/" + std::to_string(i));
  } else {
    level(*raw, w.pointer_of("clients"));
  }
  return levels;
}

// `comm_sms`: the compute section's communication SMs, where it gives them (else -1): every unit's default.
// `engine`: its defaults for the batch caps where the unit gives none.
UnitSpec parse_unit(core::JsonReader u, const workload::Model& m, const ClusterConfig& cl, bool decode_kind, bool colocated, int comm_sms,
                    const serving::EngineProfile& engine) {
  UnitSpec s;
  s.pointer = u.pointer();
  s.units = static_cast<int>(u.positive_integer("units", 1, 100000));
  auto& d = s.config.deployment;
  const int node_gpus = cl.cluster.gpus_per_node;
  const int gpus = unit_gpus(u, node_gpus);
  s.nodes = double(gpus) / node_gpus;
  d.sms = cl.gpu->sm_count;
  d.attention_tp = static_cast<int>(u.positive_integer("attention_tp", 1, 1024));
  // Pipeline stages of consecutive GPUs; the deployment's other fields are one stage's.
  d.pipeline_stages = static_cast<int>(u.positive_integer("pipeline_parallel", 1, 1024));
  if (gpus % d.attention_tp != 0)
    throw core::InputError(u.pointer_of("attention_tp"), std::to_string(d.attention_tp) + " does not divide the unit's " + std::to_string(gpus) +
                                                          " GPUs: TP x DP must equal them");
  if (gpus % (d.attention_tp * d.pipeline_stages) != 0)
    throw core::InputError(u.pointer_of("pipeline_parallel"), "TP " + std::to_string(d.attention_tp) + " x PP " + std::to_string(d.pipeline_stages) +
                                                              " does not divide the unit's " + std::to_string(gpus) + " GPUs: TP x DP x PP must equal them");
  if (d.pipeline_stages > 1 && d.pipeline_stages > m.layers)
    throw core::InputError(u.pointer_of("pipeline_parallel"), std::to_string(d.pipeline_stages) + " is not allowed; at most " + m.display_name + "'s " +
                                                              std::to_string(m.layers) + " layers, a stage holding at least one");
  d.gpus = gpus / d.pipeline_stages;
  for (int k = 1; k < d.pipeline_stages; ++k) d.pipeline_node_crossings += (k * d.gpus) % node_gpus == 0;
  // A stage within one node (scale-up domain) has all of its traffic on NVLink; a larger one is
  // made of whole nodes.
  d.gpus_per_node = std::min(node_gpus, d.gpus);
  if (m.attention.heads % d.attention_tp != 0)
    throw core::InputError(u.pointer_of("attention_tp"), std::to_string(d.attention_tp) + " does not divide " + m.display_name + "'s " +
                                                          std::to_string(m.attention.heads) + " attention heads");
  if (m.moe) {
    const int experts = m.moe->routed_experts;
    d.routed_gpus = static_cast<int>(u.positive_integer("routed_expert_gpus", d.gpus, 1 << 20));
    d.redundant_experts = static_cast<int>(u.non_negative_integer("redundant_experts", 0, 1 << 20));
    if (d.routed_gpus > d.gpus)
      throw core::InputError(u.pointer_of("routed_expert_gpus"), std::to_string(d.routed_gpus) + " is not allowed; the unit has " + std::to_string(d.gpus) + " GPUs");
    d.expert_tp = u.one_of("experts", {"expert-parallel", "tensor-parallel"}, "expert-parallel") == "tensor-parallel";
    if (!d.expert_tp && (experts + d.redundant_experts) % d.routed_gpus != 0)
      throw core::InputError(u.has("redundant_experts") ? u.pointer_of("redundant_experts") : u.pointer_of("routed_expert_gpus"),
                             std::to_string(experts) + " routed + " + std::to_string(d.redundant_experts) + " redundant experts do not split evenly over " +
                                 std::to_string(d.routed_gpus) + " GPUs; every GPU holds the same number");
    d.dedicated_shared = u.one_of("shared_expert", {"local", "dedicated"}, "local") == "dedicated";
    if (d.dedicated_shared && d.shared_gpus() == 0)
      throw core::InputError(u.pointer_of("shared_expert"), "'dedicated' needs GPUs beyond the " + std::to_string(d.routed_gpus) + " routed-expert GPUs");
    d.direct_comm = u.one_of("communication", {"direct", "forwarded"}, decode_kind ? "direct" : "forwarded") == "direct";
    if (!d.direct_comm && d.routed_gpus != d.gpus)
      throw core::InputError(u.pointer_of("communication"), "'forwarded' needs the routed experts on every GPU of the unit");
    // As vLLM and SGLang run an MoE model on a TP group without expert parallelism: each expert
    // split over the routed GPUs.
    if (d.expert_tp) {
      // Each expert's FFN width split evenly, as a TP group shards it (and the shared expert's).
      const int width = m.moe->expert_ffn;
      if (width % d.routed_gpus != 0)
        throw core::InputError(u.pointer_of("routed_expert_gpus"), std::to_string(d.routed_gpus) + " GPUs is not allowed with tensor-parallel experts: " +
                                                                   m.display_name + "'s expert FFN width " + std::to_string(width) +
                                                                   " does not split evenly over them");
      for (const char* key : {"redundant_experts", "communication"})
        if (u.has(key)) throw core::InputError(u.pointer_of(key), "is for expert-parallel experts; /experts is 'tensor-parallel' (every GPU holds a slice of every expert)");
      if (d.dedicated_shared) throw core::InputError(u.pointer_of("shared_expert"), "'dedicated' is for expert-parallel experts; /experts is 'tensor-parallel'");
    }
  } else {
    for (const char* key : {"routed_expert_gpus", "redundant_experts", "shared_expert", "communication", "experts"})
      if (u.has(key)) throw core::InputError(u.pointer_of(key), "is for MoE models; " + m.display_name + " is dense (no experts)");
    d.routed_gpus = d.gpus;
    d.dedicated_shared = false;
  }
  d.micro_batches = static_cast<int>(u.positive_integer("micro_batches", engine.micro_batches.value_or(m.moe ? 2 : 1), 8));
  parse_overlap(u, d);
  // The SMs the all-to-all kernels hold, by phase as DeepSeek deploys them (notes/serving.md):
  // DeepEP's normal kernels 24 in prefill; none in decode, where the low-latency kernels wait on
  // IBGDA without SMs; none without an all-to-all.
  const int phase_sms = m.moe && !d.direct_comm && !d.expert_tp ? 24 : 0;
  d.comm_sms = static_cast<int>(u.non_negative_integer("communication_sms", comm_sms >= 0 ? comm_sms : phase_sms, d.sms - 1));
  check_comm_sms(u, d.comm_sms);
  // An MoE layer's all-to-all or gathered experts join a stage's DP ranks; pipeline stages run
  // their batches apart, so an MoE model's stage has one DP rank.
  s.config.ranks_step_together = m.moe.has_value() && d.pipeline_stages == 1;
  if (m.moe && d.pipeline_stages > 1 && d.attention_dp() > 1)
    throw core::InputError(u.pointer_of("pipeline_parallel"), std::to_string(d.pipeline_stages) + " is not allowed with " + std::to_string(d.attention_dp()) +
                                                              " DP ranks of an MoE model in a stage: give attention_tp the stage's " + std::to_string(d.gpus) +
                                                              " GPUs (one DP rank), or PP 1");
  s.config.max_running = static_cast<int>(u.positive_integer("max_running", engine.max_running.value_or(decode_kind ? 128 : 64), 1 << 20));
  const int default_tokens =
      decode_kind && !colocated ? 2 * s.config.max_running : engine.max_batch_tokens.value_or(colocated ? 8192 : 16384);
  s.config.max_batch_tokens = static_cast<int>(u.positive_integer("max_batch_tokens", default_tokens, 1 << 22));
  // The runtime's reserve by the engine's rule (vLLM's default gpu_memory_utilization of 0.9
  // leaves a tenth of HBM; TensorRT-LLM's KV takes a share of what the weights leave; SGLang
  // keeps a fixed reserve); a reserve given is the runtime's own, and replaces the rule.
  const bool reserve_given = u.has("runtime_reserve_bytes");
  s.reserve_bytes = u.non_negative_number("runtime_reserve_bytes", engine.kv_memory == serving::KvMemoryRule::kShareOfHbm ? (1 - engine.kv_memory_fraction) * cl.gpu->hbm_bytes
                                                                  : engine.kv_memory == serving::KvMemoryRule::kReserve  ? engine.kv_memory_reserve_bytes
                                                                                                                          : 0.0);
  if (!reserve_given && engine.kv_memory == serving::KvMemoryRule::kShareOfFree) s.kv_share_of_free = engine.kv_memory_fraction;
  s.reserve_holds_activations = !reserve_given && engine.kv_memory == serving::KvMemoryRule::kReserve;
  u.finish();  // a misspelt key is an error, not a default
  return s;
}


// Autoscaling per phase: its units from min_units to max_units (the deployment's units by
// default, and the fleet the run holds); a unit started serves after boot, weight load (each
// node's GPUs' weights at the storage bandwidth) and warm-up.
void parse_autoscaling(core::JsonReader& as, ServingStudy& s, serving::ServingConfig& c) {
  c.autoscaling.interval_s = as.positive_number("interval_s", 60.0);
  check_run_interval(as, "interval_s", c.autoscaling.interval_s, c.duration_s, kMaxAutoscalingTicks, "ticks", ": the autoscaler would never look");
  c.autoscaling.cooldown_s = as.non_negative_number("cooldown_s", 300.0);
  core::JsonReader up = as.object("startup");
  const double boot_s = up.non_negative_number("boot_s", 0.0);
  const double storage_Bps = up.positive_number("weight_load_Bps_per_node");
  const double warmup_s = up.non_negative_number("warmup_s", 0.0);
  up.finish();
  if (boot_s >= c.duration_s)
    throw core::InputError(up.pointer_of("boot_s"), format_number(boot_s) + " s is not allowed; a unit would boot after the run ends (duration_s " + format_number(c.duration_s) + " s)");
  const int gpn = s.cluster.cluster.gpus_per_node;
  auto phase = [&](const std::string& key, UnitSpec& u, serving::PhaseScaling& p) {
    auto o = as.optional_object(key);
    if (!o) return;
    p.enabled = true;
    p.max_units = static_cast<int>(o->positive_integer("max_units", u.units, 100000));
    // The deployment's units are where the run starts (initial_units' default): above the cap, which
    // was meant would be a guess.
    if (p.max_units < u.units && !o->has("initial_units"))
      throw core::InputError(o->pointer_of("max_units"), std::to_string(p.max_units) + " is not allowed below the deployment's " + std::to_string(u.units) +
                                                            " units (" + u.pointer + "/units), where the run starts: give fewer units, or initial_units");
    p.min_units = static_cast<int>(o->positive_integer("min_units", 1, 100000));
    if (p.min_units > p.max_units)
      throw core::InputError(o->pointer_of("min_units"), std::to_string(p.min_units) + " is not allowed; at most max_units (" + std::to_string(p.max_units) + ")");
    p.initial_units = static_cast<int>(o->positive_integer("initial_units", std::clamp(u.units, p.min_units, p.max_units), 100000));
    if (p.initial_units < p.min_units || p.initial_units > p.max_units)
      throw core::InputError(o->pointer_of("initial_units"), std::to_string(p.initial_units) + " is not allowed; from min_units (" + std::to_string(p.min_units) +
                                                               ") to max_units (" + std::to_string(p.max_units) + ")");
    p.target_utilisation = o->positive_number("target_utilisation", 0.7);
    if (p.target_utilisation > 1) throw core::InputError(o->pointer_of("target_utilisation"), format_number(p.target_utilisation) + " is not allowed; a share up to 1");
    p.scale_up_above = o->positive_number("scale_up_above", std::min(1.0, p.target_utilisation + 0.15));
    p.scale_down_below = o->non_negative_number("scale_down_below", 0.7 * p.target_utilisation);
    if (p.scale_down_below >= p.scale_up_above)
      throw core::InputError(o->pointer_of("scale_down_below"), format_number(p.scale_down_below) + " is not allowed; below scale_up_above (" +
                                                                  format_number(p.scale_up_above) + ")");
    p.max_queue_per_unit = o->non_negative_number("max_queue_per_unit", 0.0);
    p.max_latency_p90_s = o->non_negative_number("max_latency_p90_s", 0.0);
    p.on_latency = o->one_of("scale_on", {"utilisation", "latency"}, "utilisation") == "latency";
    p.latency_down_below = o->positive_number("latency_down_below", 0.5);
    if (p.on_latency && p.max_latency_p90_s <= 0)
      throw core::InputError(o->pointer_of("scale_on"), "'latency' needs max_latency_p90_s, the p90 above which units are added");
    if (p.latency_down_below >= 1)
      throw core::InputError(o->pointer_of("latency_down_below"), format_number(p.latency_down_below) + " is not allowed; a share of max_latency_p90_s below 1");
    o->finish();
    p.startup_s = boot_s + u.config.memory.weight_bytes * gpn / storage_Bps + warmup_s;
    if (p.startup_s >= c.duration_s)
      throw core::InputError(up.pointer_of("weight_load_Bps_per_node"), "a " + key + " unit starts in " + format_number(p.startup_s) +
                                                                            " s (boot, weight load, warm-up), not within the run (duration_s " + format_number(c.duration_s) + " s)");
    check_rank_count(o->pointer_of("max_units"), std::to_string(p.max_units) + " units of " + std::to_string(u.config.ranks()) + " DP ranks",
                     double(p.max_units) * u.config.ranks());
    u.units = p.max_units;  // the run holds the whole fleet, its units off until started
  };
  if (s.disaggregated) {
    phase("prefill", s.prefill, c.autoscaling.prefill);
    phase("decode", s.decode, c.autoscaling.decode);
  } else {
    phase("colocated", s.decode, c.autoscaling.decode);
  }
  as.finish();
}

}  // namespace

std::unique_ptr<Study> parse_serving_study(core::JsonReader& root) {
  auto s = std::make_unique<ServingStudy>();
  s->model = &read_model(root);
  const workload::Model& m = *s->model;
  s->cluster = parse_cluster(root.object("cluster"));
  s->flow = root.one_of("mode", {"analytical", "flow"}, "analytical") == "flow";
  const net::Cluster& k = s->cluster.cluster;
  s->links = {k.scale_up_Bps, k.scale_out_Bps, k.scale_up_latency_s, k.scale_out_latency_s, s->cluster.node->pcie_Bps};
  // Communication SMs given in the compute section hold for every unit; else each phase its own.
  const bool compute_sms = root.has("compute") && root.raw("compute")->is_object() && root.raw("compute")->contains("communication_sms");
  // The kinds of GEMM the model runs: a general-purpose library (no masked kernel) runs decode's
  // masked expert GEMMs as dense ones (hw/gemm_library.cpp).
  std::vector<hw::GemmKind> kinds = {hw::GemmKind::kDense};
  if (m.moe) kinds.push_back(hw::GemmKind::kGroupedContiguous);
  s->compute = parse_compute(root.object("compute"), *s->cluster.gpu, 0, kinds);
  const int comm_sms = compute_sms ? s->compute.kernels.sms : -1;

  auto& c = s->config;
  core::JsonReader dep = root.object("deployment");
  s->disaggregated = dep.one_of("mode", {"disaggregated", "colocated"}) == "disaggregated";
  c.disaggregated = s->disaggregated;
  s->label_ = s->disaggregated ? "disaggregated" : "colocated";
  c.engine = engine_by_name(dep.has("engine") ? dep.string("engine") : "bare", dep.pointer_of("engine"));
  // The engine's release where its profiles differ by version (its latest where none is given).
  if (dep.has("engine_version")) c.engine = engine_by_version(c.engine.name, dep.string("engine_version"), dep.pointer_of("engine_version"));
  if (s->disaggregated) {
    s->prefill = parse_unit(dep.object("prefill"), m, s->cluster, false, false, comm_sms, c.engine);
    s->decode = parse_unit(dep.object("decode"), m, s->cluster, true, false, comm_sms, c.engine);
  } else {
    s->decode = parse_unit(dep.object("colocated"), m, s->cluster, true, true, comm_sms, c.engine);
  }
  {
    const UnitSpec& big = s->disaggregated && s->prefill.units * s->prefill.config.ranks() > s->decode.units * s->decode.config.ranks() ? s->prefill : s->decode;
    check_rank_count(big.pointer + "/units", std::to_string(big.units) + " units of " + std::to_string(big.config.ranks()) + " DP ranks",
                     (s->disaggregated ? double(s->prefill.units) * s->prefill.config.ranks() : 0.0) + double(s->decode.units) * s->decode.config.ranks());
  }
  // The units say how many nodes the deployment takes; a cluster size that disagrees would be ignored.
  if (root.raw("cluster")->contains("nodes")) {
    const double prefill_nodes = s->disaggregated ? s->prefill.units * s->prefill.nodes : 0;
    const long long deployed = static_cast<long long>(std::ceil(prefill_nodes + s->decode.units * s->decode.nodes - 1e-9));
    if (k.nodes != deployed) {
      auto units = [](const UnitSpec& u, const std::string& phase) {
        return std::to_string(u.units) + " " + phase + " unit" + (u.units == 1 ? "" : "s") + " of " + std::to_string(u.config.deployment.gpus * u.config.deployment.pipeline_stages) + " GPUs";
      };
      throw core::InputError(root.pointer_of("cluster") + "/nodes", std::to_string(k.nodes) + " is not allowed; the deployment's units take " +
                                                                     std::to_string(deployed) + " nodes (" +
                                                                     (s->disaggregated ? units(s->prefill, "prefill") + " + " + units(s->decode, "decode")
                                                                                       : units(s->decode, "colocated")) +
                                                                     "): give that, or leave it out");
    }
  }
  s->router_name_ = dep.one_of("router", {"round-robin", "least-loaded", "kv-aware"}, "least-loaded");
  c.router = s->router_name_ == "round-robin" ? serving::RouterPolicy::kRoundRobin
             : s->router_name_ == "kv-aware"  ? serving::RouterPolicy::kKvAware
                                              : serving::RouterPolicy::kLeastLoaded;
  c.preemption = dep.one_of("preemption", {"recompute", "swap"}, "recompute") == "swap" ? serving::Preemption::kSwap : serving::Preemption::kRecompute;
  const std::string scheduler = dep.one_of("scheduler", serving::scheduler_names(), s->disaggregated ? "chunked-prefill" : c.engine.scheduler.value_or("chunked-prefill"));
  if (s->disaggregated && scheduler != "chunked-prefill")
    throw core::InputError(dep.pointer_of("scheduler"), "'" + scheduler + "' is for colocated units, which mix prompts and decoding; a disaggregated deployment keeps them apart");
  serving::scheduler_named(scheduler, c.scheduler);
  c.page_tokens = static_cast<int>(dep.positive_integer("page_tokens", c.engine.page_tokens.value_or(64), 1 << 16));
  const double kv_bytes_per_element = dep.positive_number("kv_bytes_per_element", 2.0);
  s->base.kv_bytes_per_element = kv_bytes_per_element;
  c.kv_transfer_Bps = dep.positive_number("kv_transfer_bandwidth_Bps", k.scale_out_Bps);
  c.kv_transfer_latency_s = dep.non_negative_number("kv_transfer_latency_s", k.scale_out_latency_s);
  c.swap_Bps = dep.positive_number("swap_bandwidth_Bps", s->cluster.node->pcie_Bps);
  // MTP: `mtp_draft_tokens` drafts per step (0: none, no verify step), each accepted with its
  // position's rate (one rate for all, or one per position).
  if (dep.has("mtp_acceptance") || dep.has("mtp_draft_tokens")) {
    c.mtp_drafts = static_cast<int>(dep.non_negative_integer("mtp_draft_tokens", 1, 8));
    const nlohmann::json* rates = dep.raw("mtp_acceptance");
    if (c.mtp_drafts > 0 && !rates) throw core::InputError(dep.pointer_of("mtp_acceptance"), "is missing; MTP's drafts need an acceptance rate");
    if (c.mtp_drafts > 0) {
      const bool per_position = rates->is_array();
      if (per_position && rates->size() != static_cast<std::size_t>(c.mtp_drafts))
        throw core::InputError(dep.pointer_of("mtp_acceptance"), std::to_string(rates->size()) + " rates is not allowed; one for each of the " +
                                                                     std::to_string(c.mtp_drafts) + " draft tokens, or one for all");
      for (int i = 0; i < c.mtp_drafts; ++i) {
        const nlohmann::json& v = per_position ? (*rates)[static_cast<std::size_t>(i)] : *rates;
        const std::string at = dep.pointer_of("mtp_acceptance") + (per_position ? "/" + std::to_string(i) : "");
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
          throw core::InputError(at, core::describe(v) + " is not allowed; an acceptance rate from 0 to 1");
        c.mtp_acceptance.push_back(v.get<double>());
      }
      if (m.mtp_modules < 1) throw core::InputError(dep.pointer_of("mtp_acceptance"), m.display_name + " has no MTP module to draft with");
    }
  }
  if (auto pc = dep.optional_object("prefix_cache")) {
    c.prefix_cache_blocks = pc->positive_integer("blocks", 1 << 20, core::JsonReader::kMaxInteger);
    c.prefix_block_tokens = static_cast<int>(pc->positive_integer("block_tokens", serving::kMooncakeBlockTokens, 1 << 20));
    const std::string tier = pc->one_of("tier", {"hbm", "host", "disk"}, "hbm");
    if (tier != "hbm") c.prefix_fetch_Bps = pc->positive_number("bandwidth_Bps");
    pc->finish();
  }
  dep.finish();
  if (s->disaggregated) {
    // MLA's latent is whole on each GPU of a TP group (one sends it); GQA's heads are split.
    c.kv_senders = m.attention.kind == workload::AttentionKind::kMla ? 1 : std::min(s->prefill.config.deployment.attention_tp, m.attention.kv_heads);
  }

  // A fleet over time: streamed records, series by interval.
  {
    const nlohmann::json* wl = root.raw("workload");
    const bool profile = wl && wl->is_object() && wl->contains("arrivals") && (*wl)["arrivals"].is_object() &&
                         (*wl)["arrivals"].contains("rate_per_s") && (*wl)["arrivals"]["rate_per_s"].is_object();
    s->fleet = profile || root.has("autoscaling") || root.has("cost") || root.has("series");
  }

  // The workload.
  core::JsonReader w = root.object("workload");
  c.duration_s = w.positive_number("duration_s", 60.0);
  c.warmup_s = w.non_negative_number("warmup_s", 0.0);
  if (c.warmup_s >= c.duration_s)
    throw core::InputError(w.pointer_of("warmup_s"), format_number(c.warmup_s) + " is not allowed; the warm-up ends before duration_s (" + format_number(c.duration_s) + ")");
  c.seed = static_cast<std::uint64_t>(w.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  s->base.seed = c.seed;
  const int max_tokens = m.max_context_tokens > 0 ? m.max_context_tokens : 10'000'000;
  // A search or a plan replays the workload faster (kMaxReplayScale).
  const nlohmann::json* slo_raw = root.has("slo") ? root.raw("slo") : nullptr;
  const bool replays = root.has("plan") || (slo_raw && slo_raw->is_object() && slo_raw->contains("search") && slo_raw->at("search") == true);
  if (w.has("trace")) {
    const std::string given = w.string("trace");
    const std::string path = resolve_input_file(given);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      std::string tried;
      for (const auto& place : input_file_places(given)) tried += (tried.empty() ? "" : ", ") + place;
      throw core::InputError(w.pointer_of("trace"), "'" + given.substr(0, 200) + "' is not a file; tried " + tried);
    }
    const std::string format = w.one_of("format", {"azure-csv", "mooncake-jsonl"});
    const double speed = w.positive_number("time_scale", 1.0);
    serving::TraceWindow window;
    window.until_s = c.duration_s * speed * (replays ? kMaxReplayScale : 1.0);
    s->trace = serving::read_trace(path, format == "azure-csv" ? serving::TraceFormat::kAzureCsv : serving::TraceFormat::kMooncakeJsonl, window);
    for (auto& q : s->trace) q.arrival_s /= speed;
    s->whole_trace = s->trace;
    std::erase_if(s->trace, [&](const serving::Request& q) { return q.arrival_s >= c.duration_s; });
    if (w.has("prefix_hit_fraction")) {
      const double f = w.non_negative_number("prefix_hit_fraction");
      if (f >= 1) throw core::InputError(w.pointer_of("prefix_hit_fraction"), format_number(f) + " is not allowed; a share below 1");
      for (auto* list : {&s->trace, &s->whole_trace})
        for (auto& q : *list) q.set_prefix_hit(f);
    }
    for (const auto& q : s->trace)
      if (q.input_tokens + q.output_tokens > max_tokens)
        throw core::InputError(path + ": line " + std::to_string(q.source_line),
                               std::to_string(q.input_tokens) + " + " + std::to_string(q.output_tokens) + " tokens is not allowed; " + m.display_name +
                                   "'s context is " + std::to_string(max_tokens) + " tokens");
    // A request that asked for no token still gets the one its prefill makes, as an engine's does.
    const auto no_output = std::count_if(s->trace.begin(), s->trace.end(), [](const serving::Request& q) { return q.output_tokens == 0; });
    s->workload_text = "Workload: " + std::to_string(s->trace.size()) + " requests from the trace " + std::filesystem::path(path).filename().string() +
                       (speed != 1 ? " at " + format_number(speed) + "x its pace" : "") + "." +
                       (no_output > 0 ? " " + std::to_string(no_output) + " of them ask for 0 output tokens: each is served the one token its prefill makes." : "");
  } else {
    serving::GeneratedWorkload g;
    if (w.has("clients")) {
      if (s->fleet)
        throw core::InputError(w.pointer_of("clients"), "is not allowed in a fleet over time (a load profile, autoscaling, a cost or series): give arrivals");
      s->client_levels = parse_client_levels(w);
      // Beside arrivals, the clients are a cap on the requests in flight (vLLM's --request-rate
      // with --max-concurrency); alone, each sends its next request when its last one ends.
      s->capped = w.has("arrivals");
      if (s->capped) {
        const nlohmann::json* given = w.raw("arrivals");
        if (given->is_object() && given->contains("rate_per_s") && (*given)["rate_per_s"] == "inf")
          throw core::InputError(w.pointer_of("arrivals") + "/rate_per_s", "'inf' is not allowed beside clients: every request would be sent at 0 s; "
                                                                            "give clients alone (each sends its next request when its last one ends)");
        g.arrivals = parse_arrivals(w, c.duration_s, s->fleet);
        if (std::isinf(g.arrivals.rate_per_s))
          throw core::InputError(w.pointer_of("arrivals") + "/rate_per_s", "'inf' is not allowed beside clients: every request would be sent at 0 s; "
                                                                            "give clients alone (each sends its next request when its last one ends)");
        for (const char* key : {"think_s", "think"})
          if (w.has(key))
            throw core::InputError(w.pointer_of(key), shown(*w.raw(key)) + " is not allowed beside arrivals: a pause is for closed-loop clients; beside arrivals, clients cap the requests in flight");
      }
      s->clients.think_s = w.non_negative_number("think_s", 0.0);
      s->clients.exponential_think = w.one_of("think", {"fixed", "exponential"}, "fixed") == "exponential";
      if (s->clients.exponential_think && !(s->clients.think_s > 0))
        throw core::InputError(w.pointer_of("think"), "'exponential' is not allowed without a pause: give think_s, its mean, above 0");
      if (s->clients.think_s >= c.duration_s)
        throw core::InputError(w.pointer_of("think_s"), format_number(s->clients.think_s) + " is not allowed; below duration_s (" + format_number(c.duration_s) + ")");
      s->clients.clients = s->client_levels.front();
      // At most one request a client per step: a bound to refuse an absurd count before the run.
      for (int level : s->client_levels)
        check_request_count(w.pointer_of("clients"), std::to_string(level) + " clients over duration_s " + format_number(c.duration_s) + " s", double(level));
    } else {
      g.arrivals = parse_arrivals(w, c.duration_s, s->fleet);
    }
    g.input = parse_length(w, "input_tokens", 1, max_tokens);
    g.output = parse_length(w, "output_tokens", 1, max_tokens);
    if (g.input.max + g.output.max > max_tokens)
      throw core::InputError(w.pointer_of("output_tokens"), "prompts up to " + std::to_string(g.input.max) + " and answers up to " +
                                                                std::to_string(g.output.max) + " tokens are not allowed; " + m.display_name +
                                                                "'s context is " + std::to_string(max_tokens) + " tokens (give max)");
    g.prefix_hit_fraction = w.non_negative_number("prefix_hit_fraction", 0.0);
    if (g.prefix_hit_fraction >= 1)
      throw core::InputError(w.pointer_of("prefix_hit_fraction"), format_number(g.prefix_hit_fraction) + " is not allowed; a share below 1");
    if (w.has("hours"))
      for (auto& h : w.object_list("hours", "hours of the run, each with input_scale, output_scale or prefix_hit_fraction")) {
        serving::WorkloadHour hour;
        hour.input_scale = h.positive_number("input_scale", 1.0);
        hour.output_scale = h.positive_number("output_scale", 1.0);
        if (h.has("prefix_hit_fraction")) hour.prefix_hit_fraction = h.non_negative_number("prefix_hit_fraction");
        if (hour.prefix_hit_fraction >= 1)
          throw core::InputError(h.pointer_of("prefix_hit_fraction"), format_number(hour.prefix_hit_fraction) + " is not allowed; a share below 1");
        // A scale stretches the lengths' bounds too: the longest request it makes must fit the context.
        const long long longest_scaled = serving::longest_request_tokens(g, hour);
        if (longest_scaled > max_tokens)
          throw core::InputError(h.pointer_of(h.has("input_scale") ? "input_scale" : "output_scale"),
                                 "scales the longest request to " + std::to_string(longest_scaled) + " tokens; " + m.display_name + "'s context is " +
                                     std::to_string(max_tokens) + " tokens");
        h.finish();
        g.hours.push_back(hour);
      }
    g.duration_s = c.duration_s;
    g.seed = c.seed;
    s->generated = g;
    if ((s->client_levels.empty() || s->capped) && std::isfinite(g.arrivals.rate_per_s) && serving::first_arrival_s(g) >= g.duration_s)
      throw core::InputError(w.pointer_of("arrivals"), "no request arrives within duration_s; raise rate_per_s or duration_s");
    const std::string arrivals =
        s->capped ? std::string(g.arrivals.burstiness == 1 ? "Poisson" : "gamma (burstiness " + format_number(g.arrivals.burstiness) + ")") + " arrivals at " +
                        format_number(g.arrivals.rate_per_s) + " requests/s, each sent once fewer than the clients' number are in flight (as `vllm bench serve "
                        "--request-rate R --max-concurrency N` sends them; TTFT from the send)"
        : !s->client_levels.empty() ? "closed-loop clients (each sends its next request when its last one ends" +
                                        (s->clients.think_s > 0 ? std::string(", after ") + (s->clients.exponential_think ? "an exponential pause of mean " : "") +
                                                                      format_number(s->clients.think_s) + " s"
                                                                : std::string()) +
                                        ")"
        : std::isinf(g.arrivals.rate_per_s) ? "every request at 0 s (a benchmark's throughput mode)"
        : std::string(g.arrivals.burstiness == 1 ? "Poisson" : "gamma (burstiness " + format_number(g.arrivals.burstiness) + ")") + " arrivals at " +
              format_number(g.arrivals.rate_per_s) + " requests/s" +
              (g.arrivals.profile.empty() ? std::string()
                                          : " on average (from " + format_number(*std::min_element(g.arrivals.profile.rates_per_s().begin(), g.arrivals.profile.rates_per_s().end())) +
                                                " to " + format_number(g.arrivals.profile.peak_per_s()) + " over the run)");
    s->workload_text = "Workload: " + arrivals + ", {requests} requests" +
                       (g.prefix_hit_fraction > 0 ? ", " + format_number(100 * g.prefix_hit_fraction) + "% of each prompt a prefix-cache hit" : "") + ".";
  }
  s->base.affinity = parse_affinity(w, "uniform", 0.0);
  w.finish();
  if (auto slo = root.optional_object("slo")) {
    s->slo.ttft_s = slo->non_negative_number("ttft_p90_s", 0.0);
    s->slo.tpot_s = slo->non_negative_number("tpot_p90_s", 0.0);
    if (s->slo.ttft_s <= 0 && s->slo.tpot_s <= 0) throw core::InputError(slo->pointer(), "give ttft_p90_s, tpot_p90_s or both, above 0");
    s->search = slo->boolean("search", false);
    slo->finish();
  }
  if (!s->client_levels.empty() && (s->search || root.has("plan")))
    throw core::InputError(s->search ? "/slo/search" : "/plan", "is not allowed with closed-loop clients: a search replays the workload's arrivals faster; give a list of clients instead (a concurrency sweep)");
  if (s->generated && std::isinf(s->generated->arrivals.rate_per_s) && (s->search || root.has("plan")))
    throw core::InputError(s->search ? "/slo/search" : "/plan", "is not allowed at an infinite rate: every request already arrives at 0 s");
  if (s->generated && std::isinf(s->generated->arrivals.rate_per_s) && c.warmup_s > 0)
    throw core::InputError("/workload/warmup_s", format_number(c.warmup_s) + " is not allowed at an infinite rate: every request arrives at 0 s, before it");
  if (auto plan = root.optional_object("plan")) {
    if (s->slo.ttft_s <= 0 && s->slo.tpot_s <= 0)
      throw core::InputError(plan->pointer(), "a plan is made against an SLO: give /slo with ttft_p90_s, tpot_p90_s or both");
    s->plan = true;
    if (s->fleet) {  // a plan for the day: its load from the profile
      if (!s->generated || s->generated->arrivals.profile.empty())
        throw core::InputError(plan->pointer(), "a plan for a fleet is made over a load profile: give /workload/arrivals/rate_per_s as hourly values or a diurnal curve");
      if (!s->generated->hours.empty())
        throw core::InputError("/workload/hours", "is not allowed with a plan: a day plan finds each unit's rate on the workload's own lengths and prefix hits, the same at every hour");
      for (const char* key : {"rate_per_s", "batch_caps"})
        if (plan->has(key))
          throw core::InputError(plan->pointer_of(key), shown(*plan->raw(key)) + " is not allowed with a load profile: the profile gives the load, hour by hour");
      s->day_window_s = plan->positive_number("window_s", s->day_window_s);
      s->day_warmup_s = plan->non_negative_number("warmup_s", s->day_warmup_s);
      if (s->day_warmup_s > s->day_window_s - 60) {  // a window of a minute or less measures nothing whatever the warm-up
        if (s->day_window_s <= 60)
          throw core::InputError(plan->pointer_of("window_s"), format_number(s->day_window_s) + " s is not allowed; at least warmup_s (" +
                                                                format_number(s->day_warmup_s) + " s) + 60 s: each run measures what arrives after its warm-up");
        throw core::InputError(plan->pointer_of("warmup_s"), format_number(s->day_warmup_s) + " s is not allowed; at least 60 s below window_s (" +
                                                              format_number(s->day_window_s) + " s): each run measures what arrives after it");
      }
      const double peak = s->generated->arrivals.profile.peak_per_s();
      check_request_count(plan->pointer_of("window_s"), format_number(peak) + " req/s (the profile's peak) over window_s " + format_number(s->day_window_s) + " s",
                          peak * s->day_window_s);
      if (peak * (s->day_window_s - s->day_warmup_s) < 20)
        throw core::InputError(plan->pointer_of("window_s"), format_number(s->day_window_s) + " s measured after " + format_number(s->day_warmup_s) +
                                                              " s is not allowed: at the profile's peak (" + format_number(peak) +
                                                              " req/s) it measures fewer than 20 requests; lengthen window_s");
      plan->finish();
    } else {
      s->plan_rate = plan->has("rate_per_s") ? plan->positive_number("rate_per_s") : 0.0;
      if (s->plan_rate > 0 && s->plan_rate * (c.duration_s - c.warmup_s) < 1)
        throw core::InputError(plan->pointer_of("rate_per_s"), format_number(s->plan_rate) + " req/s is not allowed: no request would arrive in the " +
                                                                 format_number(c.duration_s - c.warmup_s) + " s measured (duration_s less warmup_s)");
      check_request_count(plan->pointer_of("rate_per_s"), format_number(s->plan_rate) + " req/s over duration_s " + format_number(c.duration_s) + " s",
                          s->plan_rate * c.duration_s);
      if (!s->generated && s->plan_rate / s->base_rate() > kMaxReplayScale)
        throw core::InputError(plan->pointer_of("rate_per_s"), format_number(s->plan_rate) + " req/s is not allowed: the trace's " + format_number(s->base_rate()) +
                                                                  " req/s replayed " + short_number(s->plan_rate / s->base_rate()) + "x faster; at most " +
                                                                  format_number(kMaxReplayScale) + "x");
      const int cap = s->decode.config.max_running;
      std::vector<int> caps;
      if (plan->has("batch_caps")) {
        const nlohmann::json* raw = plan->raw("batch_caps");
        if (!raw->is_array() || raw->empty())
          throw core::InputError(plan->pointer_of("batch_caps"), raw->dump() + " is not allowed; a list of sequences per DP rank, each at least 1");
        for (std::size_t i = 0; i < raw->size(); ++i) {
          const auto& v = (*raw)[i];
          if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1 << 20))
            throw core::InputError(plan->pointer_of("batch_caps") + "/" + std::to_string(i), v.dump() + " is not allowed; a whole number from 1 to 1048576");
          if (std::find(caps.begin(), caps.end(), v.get<int>()) != caps.end())
            throw core::InputError(plan->pointer_of("batch_caps") + "/" + std::to_string(i), v.dump() + " is not allowed; it is given twice");
          caps.push_back(v.get<int>());
        }
      } else {
        for (int b = 1; b < cap; b *= 2) caps.push_back(b);
        caps.push_back(cap);
      }
      s->plan_caps = caps;
      plan->finish();
    }
  }

  // Memory: the longest request must fit in one DP rank's KV cache: a trace's longest, or the
  // longest a generated workload may draw (its lengths' maxima), known without drawing it.
  long long longest = s->generated ? serving::longest_request_tokens(*s->generated, {}) : 0;
  if (s->generated)
    for (const auto& hour : s->generated->hours) longest = std::max(longest, serving::longest_request_tokens(*s->generated, hour));
  for (const auto& q : s->trace) longest = std::max<long long>(longest, q.input_tokens + q.output_tokens);
  auto plan = [&](UnitSpec& u, bool decode_kind) {
    serving::MemoryInput in;
    in.max_step_tokens = decode_kind && s->disaggregated ? u.config.max_running * (1 + c.mtp_drafts) : u.config.max_batch_tokens;
    in.runtime_reserve_bytes = u.reserve_bytes;
    in.kv_share_of_free = u.kv_share_of_free;
    in.reserve_holds_activations = u.reserve_holds_activations;
    in.kv_bytes_per_element = kv_bytes_per_element;
    in.weights = s->compute.precision();
    in.mtp = c.mtp_drafts > 0 && decode_kind;
    in.page_tokens = c.page_tokens;
    u.memory_input = in;
    u.config.memory = serving::plan_memory(m, *s->cluster.gpu, u.config.deployment, in);
    const auto& p = u.config.memory;
    if (p.kv_tokens < longest + c.page_tokens)
      throw core::InputError(u.pointer, "a DP rank's KV cache holds " + std::to_string(std::max(0LL, p.kv_tokens)) + " tokens (" + gb(p.hbm_bytes) + " GB HBM - " +
                                            gb(p.weight_bytes) + " GB weights - " + gb(p.activation_bytes) + " GB activations - " + gb(p.reserve_bytes) +
                                            " GB reserve, " + format_number(p.kv_bytes_per_token_gpu / 1e3) + " KB a token) in pages of " +
                                            std::to_string(c.page_tokens) + "; the longest request needs " + std::to_string(longest) +
                                            " and a page more: use more GPUs, a larger TP, fewer tokens per step or smaller pages");
  };
  if (s->disaggregated) plan(s->prefill, false);
  plan(s->decode, true);
  if (s->disaggregated)  // the plan's batch caps must leave the decode rank room for a request
    for (std::size_t i = 0; i < s->plan_caps.size(); ++i) {
      serving::MemoryInput in = s->decode.memory_input;
      in.max_step_tokens = s->plan_caps[i] * (1 + c.mtp_drafts);
      const auto p = serving::plan_memory(m, *s->cluster.gpu, s->decode.config.deployment, in);
      if (p.kv_tokens < longest + c.page_tokens)
        throw core::InputError("/plan/batch_caps/" + std::to_string(i), std::to_string(s->plan_caps[i]) + " sequences per DP rank leave its KV cache " +
                                                                            std::to_string(std::max(0LL, p.kv_tokens)) + " tokens; the longest request needs " +
                                                                            std::to_string(longest));
    }
  if (s->fleet && s->search)
    throw core::InputError("/slo/search", "is not allowed with a load profile, autoscaling, a cost or series: a fleet's run streams its records");
  if (s->fleet) {
    c.interval_s = 300;
    if (auto series = root.optional_object("series")) {
      c.interval_s = series->positive_number("interval_s", 300.0);
      check_run_interval(*series, "interval_s", c.interval_s, c.duration_s, kMaxSeriesIntervals, "intervals", "");
      series->finish();
    }
    if (auto cost = root.optional_object("cost")) {
      // Prices within what any market has asked, by orders of magnitude, so that sums stay finite.
      s->usd_per_gpu_hour = cost->number_in("usd_per_gpu_hour", 1e-6, 1e4);
      if (auto prices = cost->optional_object("prices_per_million_tokens")) {
        s->priced = true;
        s->usd_per_million_hit = prices->number_in("input_cache_hit", 0, 1e6);
        s->usd_per_million_miss = prices->number_in("input_cache_miss", 0, 1e6);
        s->usd_per_million_output = prices->number_in("output", 0, 1e6);
        prices->finish();
      }
      cost->finish();
    }
    if (auto as = root.optional_object("autoscaling")) parse_autoscaling(*as, *s, c);
  }
  // Searches stay within kMaxRequests a run.
  s->search_max_scale = max_search_scale(s->expected_requests(1.0));
  if (!s->disaggregated) s->prefill = s->decode;
  c.prefill = s->prefill.config;
  c.decode = s->decode.config;
  c.prefill_units = s->prefill.units;
  c.decode_units = s->decode.units;
  return s;
}

}  // namespace studies
