// The serving scenario's reader (study_serving.hpp): every field of a `serving` scenario, checked
// with an error naming its JSON path, into the study that runs it (serving_run.hpp); a unit's
// fields in unit_spec.cpp, the workload's in workload_reader.cpp.
#include "studies/serving/study_serving.hpp"

#include <algorithm>
#include <cmath>

#include "studies/report/joined.hpp"
#include "hw/all_reduce.hpp"
#include "core/input_error.hpp"
#include "serving/request_trace.hpp"
#include "studies/config/affinity_config.hpp"
#include "studies/config/engine_config.hpp"
#include "studies/config/model_config.hpp"
#include "studies/serving/serving_run.hpp"
#include "studies/serving/workload_reader.hpp"

namespace studies {

namespace serving_study {

namespace {

// Autoscaling per phase: its units from min_units to max_units (the deployment's units by
// default, and the fleet the run holds); a unit started serves after boot, weight load (each
// node's GPUs' weights at the storage bandwidth) and warm-up.
void parse_autoscaling(core::JsonReader& as, ServingStudy& s, serving::ServingConfig& c) {
  c.autoscaling.interval_s = as.positive_number("interval_s", 60.0);
  check_run_interval(as, "interval_s", c.autoscaling.interval_s, c.duration_s, kMaxAutoscalingTicks, "ticks",
                     ": the autoscaler would never look");
  c.autoscaling.cooldown_s = as.non_negative_number("cooldown_s", 300.0);
  core::JsonReader up = as.object("startup");
  const double boot_s = up.non_negative_number("boot_s", 0.0);
  const double storage_Bps = up.positive_number("weight_load_Bps_per_node");
  const double warmup_s = up.non_negative_number("warmup_s", 0.0);
  up.finish();
  if (boot_s >= c.duration_s)
    throw core::InputError(up.pointer_of("boot_s"),
                           format_number(boot_s) +
                               " s is not allowed; a unit would boot after the run ends (duration_s " +
                               format_number(c.duration_s) + " s)");
  const int gpn = s.cluster.cluster.gpus_per_node;
  auto phase = [&](const std::string& key, UnitSpec& u, serving::PhaseScaling& p) {
    auto o = as.optional_object(key);
    if (!o) return;
    p.enabled = true;
    p.max_units = static_cast<int>(o->positive_integer("max_units", u.units, 100000));
    // The deployment's units are where the run starts (initial_units' default): above the cap, which
    // was meant would be a guess.
    if (p.max_units < u.units && !o->has("initial_units"))
      throw core::InputError(o->pointer_of("max_units"),
                             std::to_string(p.max_units) + " is not allowed below the deployment's " +
                                 std::to_string(u.units) + " units (" + u.pointer +
                                 "/units), where the run starts: give fewer units, or initial_units");
    p.min_units = static_cast<int>(o->positive_integer("min_units", 1, 100000));
    if (p.min_units > p.max_units)
      throw core::InputError(
          o->pointer_of("min_units"),
          std::to_string(p.min_units) + " is not allowed; at most max_units (" + std::to_string(p.max_units) + ")");
    p.initial_units =
        static_cast<int>(o->positive_integer("initial_units", std::clamp(u.units, p.min_units, p.max_units), 100000));
    if (p.initial_units < p.min_units || p.initial_units > p.max_units)
      throw core::InputError(o->pointer_of("initial_units"),
                             std::to_string(p.initial_units) + " is not allowed; from min_units (" +
                                 std::to_string(p.min_units) + ") to max_units (" + std::to_string(p.max_units) + ")");
    p.target_utilisation = o->positive_number("target_utilisation", 0.7);
    if (p.target_utilisation > 1)
      throw core::InputError(o->pointer_of("target_utilisation"),
                             format_number(p.target_utilisation) + " is not allowed; a share up to 1");
    p.scale_up_above = o->positive_number("scale_up_above", std::min(1.0, p.target_utilisation + 0.15));
    p.scale_down_below = o->non_negative_number("scale_down_below", 0.7 * p.target_utilisation);
    if (p.scale_down_below >= p.scale_up_above)
      throw core::InputError(o->pointer_of("scale_down_below"), format_number(p.scale_down_below) +
                                                                    " is not allowed; below scale_up_above (" +
                                                                    format_number(p.scale_up_above) + ")");
    p.max_queue_per_unit = o->non_negative_number("max_queue_per_unit", 0.0);
    p.max_latency_p90_s = o->non_negative_number("max_latency_p90_s", 0.0);
    p.on_latency = o->one_of("scale_on", {"utilisation", "latency"}, "utilisation") == "latency";
    p.latency_down_below = o->positive_number("latency_down_below", 0.5);
    if (p.on_latency && p.max_latency_p90_s <= 0)
      throw core::InputError(o->pointer_of("scale_on"),
                             "'latency' needs max_latency_p90_s, the p90 above which units are added");
    if (p.latency_down_below >= 1)
      throw core::InputError(
          o->pointer_of("latency_down_below"),
          format_number(p.latency_down_below) + " is not allowed; a share of max_latency_p90_s below 1");
    o->finish();
    p.startup_s = boot_s + u.config.memory.weight_bytes * gpn / storage_Bps + warmup_s;
    if (p.startup_s >= c.duration_s)
      throw core::InputError(up.pointer_of("weight_load_Bps_per_node"),
                             "a " + key + " unit starts in " + format_number(p.startup_s) +
                                 " s (boot, weight load, warm-up), not within the run (duration_s " +
                                 format_number(c.duration_s) + " s)");
    check_rank_count(o->pointer_of("max_units"),
                     std::to_string(p.max_units) + " units of " + std::to_string(u.config.ranks()) + " DP ranks",
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

}  // namespace serving_study

std::unique_ptr<Study> parse_serving_study(core::JsonReader& root) {
  using namespace serving_study;
  auto s = std::make_unique<ServingStudy>();
  s->model = &read_model(root);
  const workload::Model& m = *s->model;
  s->cluster = parse_cluster(root.object("cluster"));
  s->flow = root.one_of("mode", {"analytical", "flow"}, "analytical") == "flow";
  const net::Cluster& k = s->cluster.cluster;
  s->links = {k.scale_up_Bps,        k.scale_out_Bps,           k.scale_up_latency_s,
              k.scale_out_latency_s, s->cluster.node->pcie_Bps, hw::all_reduce_for(s->cluster.node->name)};
  // Communication SMs given in the compute section hold for every unit; else each phase its own.
  const bool compute_sms =
      root.has("compute") && root.raw("compute")->is_object() && root.raw("compute")->contains("communication_sms");
  // The kinds of GEMM the model runs: a general-purpose library (no masked kernel) runs decode's
  // masked expert GEMMs as dense ones (hw/gemm_library.cpp).
  std::vector<hw::GemmKind> kinds = {hw::GemmKind::kDense};
  if (m.moe) kinds.push_back(hw::GemmKind::kGroupedContiguous);
  auto& c = s->config;
  core::JsonReader dep = root.object("deployment");
  s->disaggregated = dep.one_of("mode", {"disaggregated", "colocated"}) == "disaggregated";
  c.disaggregated = s->disaggregated;
  s->label_ = s->disaggregated ? "disaggregated" : "colocated";
  c.engine = engine_by_name(dep.has("engine") ? dep.string("engine") : "bare", dep.pointer_of("engine"));
  // The engine's release where its profiles differ by version (its latest where none is given).
  if (dep.has("engine_version"))
    c.engine = engine_by_version(c.engine.name, dep.string("engine_version"), dep.pointer_of("engine_version"));
  // An engine built for one vendor's GPUs runs on no other.
  if (const auto& v = c.engine.vendors; !v.empty() && std::find(v.begin(), v.end(), s->cluster.gpu->vendor) == v.end())
    throw core::InputError(dep.pointer_of("engine"), "'" + c.engine.name + "' is not allowed on the " +
                                                         s->cluster.gpu->name + " (" + s->cluster.gpu->vendor +
                                                         "); it runs on " + joined(v, " and ") + " GPUs");
  // The engine's GEMM libraries where the scenario names none.
  s->compute = parse_compute(root.object("compute"), *s->cluster.gpu, 0, kinds, c.engine.gemm_libraries);
  const int comm_sms = compute_sms ? s->compute.kernels.sms : -1;
  if (s->disaggregated) {
    s->prefill = parse_unit(dep.object("prefill"), m, s->cluster, false, false, comm_sms, c.engine);
    s->decode = parse_unit(dep.object("decode"), m, s->cluster, true, false, comm_sms, c.engine);
  } else {
    s->decode = parse_unit(dep.object("colocated"), m, s->cluster, true, true, comm_sms, c.engine);
  }
  {
    const UnitSpec& big =
        s->disaggregated && s->prefill.units * s->prefill.config.ranks() > s->decode.units * s->decode.config.ranks()
            ? s->prefill
            : s->decode;
    check_rank_count(big.pointer + "/units",
                     std::to_string(big.units) + " units of " + std::to_string(big.config.ranks()) + " DP ranks",
                     (s->disaggregated ? double(s->prefill.units) * s->prefill.config.ranks() : 0.0) +
                         double(s->decode.units) * s->decode.config.ranks());
  }
  // The units say how many nodes the deployment takes; a cluster size that disagrees would be ignored.
  if (root.raw("cluster")->contains("nodes")) {
    const double prefill_nodes = s->disaggregated ? s->prefill.units * s->prefill.nodes : 0;
    const long long deployed =
        static_cast<long long>(std::ceil(prefill_nodes + s->decode.units * s->decode.nodes - 1e-9));
    if (k.nodes != deployed) {
      auto units = [](const UnitSpec& u, const std::string& phase) {
        return std::to_string(u.units) + " " + phase + " unit" + (u.units == 1 ? "" : "s") + " of " +
               std::to_string(u.config.deployment.gpus * u.config.deployment.pipeline_stages) + " GPUs";
      };
      throw core::InputError(root.pointer_of("cluster") + "/nodes",
                             std::to_string(k.nodes) + " is not allowed; the deployment's units take " +
                                 std::to_string(deployed) + " nodes (" +
                                 (s->disaggregated ? units(s->prefill, "prefill") + " + " + units(s->decode, "decode")
                                                   : units(s->decode, "colocated")) +
                                 "): give that, or leave it out");
    }
  }
  // Routers and schedulers by their registries' names (sim/serving/routers/, schedulers/).
  s->router_name_ = dep.one_of("router", serving::router_names(), "least-loaded");
  serving::router_policy_named(s->router_name_, c.router);
  c.preemption = dep.one_of("preemption", {"recompute", "swap"}, "recompute") == "swap"
                     ? serving::Preemption::kSwap
                     : serving::Preemption::kRecompute;
  const std::string scheduler =
      dep.one_of("scheduler", serving::scheduler_names(),
                 s->disaggregated ? "chunked-prefill" : c.engine.scheduler.value_or("chunked-prefill"));
  if (s->disaggregated && scheduler != "chunked-prefill")
    throw core::InputError(
        dep.pointer_of("scheduler"),
        "'" + scheduler +
            "' is for colocated units, which mix prompts and decoding; a disaggregated deployment keeps them apart");
  serving::scheduler_named(scheduler, c.scheduler);
  c.page_tokens = static_cast<int>(dep.positive_integer("page_tokens", c.engine.page_tokens.value_or(64), 1 << 16));
  const double kv_bytes_per_element = dep.positive_number("kv_bytes_per_element", 2.0);
  s->base.kv_bytes_per_element = kv_bytes_per_element;
  c.kv_transfer_Bps = dep.positive_number("kv_transfer_bandwidth_Bps", k.scale_out_Bps);
  c.kv_transfer_latency_s = dep.non_negative_number("kv_transfer_latency_s", k.scale_out_latency_s);
  // Between ranks of one node's NVLink domain (the units placed in GPU order), over NVLink.
  c.domain_gpus = s->cluster.node->gpus;
  c.kv_scale_up_Bps = k.scale_up_Bps;
  c.kv_scale_up_latency_s = k.scale_up_latency_s;
  c.swap_Bps = dep.positive_number("swap_bandwidth_Bps", s->cluster.node->pcie_Bps);
  // MTP: `mtp_draft_tokens` drafts per step (0: none, no verify step), each accepted with its
  // position's rate (one rate for all, or one per position).
  if (dep.has("mtp_acceptance") || dep.has("mtp_draft_tokens")) {
    c.mtp_drafts = static_cast<int>(dep.non_negative_integer("mtp_draft_tokens", 1, 8));
    const nlohmann::json* rates = dep.raw("mtp_acceptance");
    if (c.mtp_drafts > 0 && !rates)
      throw core::InputError(dep.pointer_of("mtp_acceptance"), "is missing; MTP's drafts need an acceptance rate");
    if (c.mtp_drafts > 0) {
      const bool per_position = rates->is_array();
      if (per_position && rates->size() != static_cast<std::size_t>(c.mtp_drafts))
        throw core::InputError(dep.pointer_of("mtp_acceptance"),
                               std::to_string(rates->size()) + " rates is not allowed; one for each of the " +
                                   std::to_string(c.mtp_drafts) + " draft tokens, or one for all");
      for (int i = 0; i < c.mtp_drafts; ++i) {
        const nlohmann::json& v = per_position ? (*rates)[static_cast<std::size_t>(i)] : *rates;
        const std::string at = dep.pointer_of("mtp_acceptance") + (per_position ? "/" + std::to_string(i) : "");
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
          throw core::InputError(at, core::describe(v) + " is not allowed; an acceptance rate from 0 to 1");
        c.mtp_acceptance.push_back(v.get<double>());
      }
      if (m.mtp_modules < 1)
        throw core::InputError(dep.pointer_of("mtp_acceptance"), m.display_name + " has no MTP module to draft with");
    }
  }
  if (auto pc = dep.optional_object("prefix_cache")) {
    c.prefix_cache_blocks = pc->positive_integer("blocks", 1 << 20, core::JsonReader::kMaxInteger);
    c.prefix_block_tokens =
        static_cast<int>(pc->positive_integer("block_tokens", serving::kMooncakeBlockTokens, 1 << 20));
    const std::string tier = pc->one_of("tier", {"hbm", "host", "disk"}, "hbm");
    if (tier != "hbm") c.prefix_fetch_Bps = pc->positive_number("bandwidth_Bps");
    pc->finish();
  }
  dep.finish();
  if (s->disaggregated) {
    // MLA's latent is whole on each GPU of a TP group (one sends it); GQA's heads are split.
    c.kv_senders = m.attention.kind == workload::AttentionKind::kMla
                       ? 1
                       : std::min(s->prefill.config.deployment.attention_tp, m.attention.kv_heads);
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
    throw core::InputError(w.pointer_of("warmup_s"), format_number(c.warmup_s) +
                                                         " is not allowed; the warm-up ends before duration_s (" +
                                                         format_number(c.duration_s) + ")");
  c.seed = static_cast<std::uint64_t>(w.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  s->base.seed = c.seed;
  // A search or a plan replays the workload faster (kMaxReplayScale).
  const nlohmann::json* slo_raw = root.has("slo") ? root.raw("slo") : nullptr;
  const bool replays = root.has("plan") || (slo_raw && slo_raw->is_object() && slo_raw->contains("search") &&
                                            slo_raw->at("search") == true);
  read_workload(w, *s, m, replays);
  s->base.affinity = parse_affinity(w, "uniform", 0.0);
  w.finish();
  if (auto slo = root.optional_object("slo")) {
    s->slo.ttft_s = slo->non_negative_number("ttft_p90_s", 0.0);
    s->slo.tpot_s = slo->non_negative_number("tpot_p90_s", 0.0);
    if (s->slo.ttft_s <= 0 && s->slo.tpot_s <= 0)
      throw core::InputError(slo->pointer(), "give ttft_p90_s, tpot_p90_s or both, above 0");
    s->search = slo->boolean("search", false);
    slo->finish();
  }
  if (!s->client_levels.empty() && (s->search || root.has("plan")))
    throw core::InputError(
        s->search ? "/slo/search" : "/plan",
        "is not allowed with closed-loop clients: a search replays the workload's arrivals faster; give a list of clients instead (a concurrency sweep)");
  if (s->generated && std::isinf(s->generated->arrivals.rate_per_s) && (s->search || root.has("plan")))
    throw core::InputError(s->search ? "/slo/search" : "/plan",
                           "is not allowed at an infinite rate: every request already arrives at 0 s");
  if (s->generated && std::isinf(s->generated->arrivals.rate_per_s) && c.warmup_s > 0)
    throw core::InputError(
        "/workload/warmup_s",
        format_number(c.warmup_s) + " is not allowed at an infinite rate: every request arrives at 0 s, before it");
  if (auto plan = root.optional_object("plan")) {
    if (s->slo.ttft_s <= 0 && s->slo.tpot_s <= 0)
      throw core::InputError(plan->pointer(),
                             "a plan is made against an SLO: give /slo with ttft_p90_s, tpot_p90_s or both");
    s->plan = true;
    if (s->fleet) {  // a plan for the day: its load from the profile
      if (!s->generated || s->generated->arrivals.profile.empty())
        throw core::InputError(
            plan->pointer(),
            "a plan for a fleet is made over a load profile: give /workload/arrivals/rate_per_s as hourly values or a diurnal curve");
      if (!s->generated->hours.empty())
        throw core::InputError(
            "/workload/hours",
            "is not allowed with a plan: a day plan finds each unit's rate on the workload's own lengths and prefix hits, the same at every hour");
      for (const char* key : {"rate_per_s", "batch_caps"})
        if (plan->has(key))
          throw core::InputError(
              plan->pointer_of(key),
              shown(*plan->raw(key)) + " is not allowed with a load profile: the profile gives the load, hour by hour");
      s->day_window_s = plan->positive_number("window_s", s->day_window_s);
      s->day_warmup_s = plan->non_negative_number("warmup_s", s->day_warmup_s);
      if (s->day_warmup_s >
          s->day_window_s - 60) {  // a window of a minute or less measures nothing whatever the warm-up
        if (s->day_window_s <= 60)
          throw core::InputError(plan->pointer_of("window_s"),
                                 format_number(s->day_window_s) + " s is not allowed; at least warmup_s (" +
                                     format_number(s->day_warmup_s) +
                                     " s) + 60 s: each run measures what arrives after its warm-up");
        throw core::InputError(plan->pointer_of("warmup_s"),
                               format_number(s->day_warmup_s) + " s is not allowed; at least 60 s below window_s (" +
                                   format_number(s->day_window_s) + " s): each run measures what arrives after it");
      }
      const double peak = s->generated->arrivals.profile.peak_per_s();
      check_request_count(
          plan->pointer_of("window_s"),
          format_number(peak) + " req/s (the profile's peak) over window_s " + format_number(s->day_window_s) + " s",
          peak * s->day_window_s);
      if (peak * (s->day_window_s - s->day_warmup_s) < 20)
        throw core::InputError(plan->pointer_of("window_s"),
                               format_number(s->day_window_s) + " s measured after " + format_number(s->day_warmup_s) +
                                   " s is not allowed: at the profile's peak (" + format_number(peak) +
                                   " req/s) it measures fewer than 20 requests; lengthen window_s");
      plan->finish();
    } else {
      s->plan_rate = plan->has("rate_per_s") ? plan->positive_number("rate_per_s") : 0.0;
      if (s->plan_rate > 0 && s->plan_rate * (c.duration_s - c.warmup_s) < 1)
        throw core::InputError(plan->pointer_of("rate_per_s"),
                               format_number(s->plan_rate) + " req/s is not allowed: no request would arrive in the " +
                                   format_number(c.duration_s - c.warmup_s) + " s measured (duration_s less warmup_s)");
      check_request_count(plan->pointer_of("rate_per_s"),
                          format_number(s->plan_rate) + " req/s over duration_s " + format_number(c.duration_s) + " s",
                          s->plan_rate * c.duration_s);
      if (!s->generated && s->plan_rate / s->base_rate() > kMaxReplayScale)
        throw core::InputError(plan->pointer_of("rate_per_s"),
                               format_number(s->plan_rate) + " req/s is not allowed: the trace's " +
                                   format_number(s->base_rate()) + " req/s replayed " +
                                   short_number(s->plan_rate / s->base_rate()) + "x faster; at most " +
                                   format_number(kMaxReplayScale) + "x");
      const int cap = s->decode.config.max_running;
      std::vector<int> caps;
      if (plan->has("batch_caps")) {
        const nlohmann::json* raw = plan->raw("batch_caps");
        if (!raw->is_array() || raw->empty())
          throw core::InputError(plan->pointer_of("batch_caps"),
                                 raw->dump() + " is not allowed; a list of sequences per DP rank, each at least 1");
        for (std::size_t i = 0; i < raw->size(); ++i) {
          const auto& v = (*raw)[i];
          if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1 << 20))
            throw core::InputError(plan->pointer_of("batch_caps") + "/" + std::to_string(i),
                                   v.dump() + " is not allowed; a whole number from 1 to 1048576");
          if (std::find(caps.begin(), caps.end(), v.get<int>()) != caps.end())
            throw core::InputError(plan->pointer_of("batch_caps") + "/" + std::to_string(i),
                                   v.dump() + " is not allowed; it is given twice");
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
  long long longest = s->generated ? requests::longest_request_tokens(*s->generated, {}) : 0;
  if (s->generated)
    for (const auto& hour : s->generated->hours)
      longest = std::max(longest, requests::longest_request_tokens(*s->generated, hour));
  for (const auto& q : s->trace) longest = std::max<long long>(longest, q.input_tokens + q.output_tokens);
  auto plan = [&](UnitSpec& u, bool decode_kind) {
    serving::MemoryInput in;
    in.max_step_tokens =
        decode_kind && s->disaggregated ? u.config.max_running * (1 + c.mtp_drafts) : u.config.max_batch_tokens;
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
      throw core::InputError(
          u.pointer, "a DP rank's KV cache holds " + std::to_string(std::max(0LL, p.kv_tokens)) + " tokens (" +
                         gb(p.hbm_bytes) + " GB HBM - " + gb(p.weight_bytes) + " GB weights - " +
                         gb(p.activation_bytes) + " GB activations - " + gb(p.reserve_bytes) + " GB reserve, " +
                         format_number(p.kv_bytes_per_token_gpu / 1e3) + " KB a token) in pages of " +
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
        throw core::InputError("/plan/batch_caps/" + std::to_string(i),
                               std::to_string(s->plan_caps[i]) + " sequences per DP rank leave its KV cache " +
                                   std::to_string(std::max(0LL, p.kv_tokens)) + " tokens; the longest request needs " +
                                   std::to_string(longest));
    }
  if (s->fleet && s->search)
    throw core::InputError(
        "/slo/search",
        "is not allowed with a load profile, autoscaling, a cost or series: a fleet's run streams its records");
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
