// A serving scenario's workload read part by part (workload_reader.hpp).
#include "studies/serving/workload_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "requests/load_profile.hpp"
#include "serving/request_trace.hpp"
#include "serving/serving_simulation.hpp"
#include "studies/report/report.hpp"
#include "studies/config/input_file.hpp"
#include "studies/serving/serving_limits.hpp"

namespace studies::serving_study {

std::string shown(const nlohmann::json& v) { return v.is_number() ? format_number(v.get<double>()) : v.dump(); }

namespace {

// A rate over the run: `hourly` requests/s for each hour, or a `diurnal` curve.
requests::LoadProfile parse_profile(core::JsonReader& r, double duration_s) {
  if (r.has("hourly") == r.has("diurnal"))
    throw core::InputError(r.pointer(),
                           "give hourly (requests/s for each hour) or diurnal (peak, trough, peak_hour), one of them");
  requests::LoadProfile profile;
  if (r.has("hourly")) {
    const auto rates = r.number_list("hourly", {0, 1e9});
    if (double(rates.size()) * 3600 < duration_s)
      throw core::InputError(r.pointer_of("hourly"), std::to_string(rates.size()) + " hours (" +
                                                         format_number(double(rates.size()) * 3600) +
                                                         " s) do not cover duration_s (" + format_number(duration_s) +
                                                         " s); give a rate for each hour of the run");
    profile = requests::LoadProfile(rates, 3600);
  } else {
    core::JsonReader d = r.object("diurnal");
    const double peak = d.number_in("peak", 1e-9, 1e9);  // as an hourly rate is bounded
    const double trough = d.number_in("trough", 0, 1e9);
    if (trough > peak)
      throw core::InputError(d.pointer_of("trough"),
                             format_number(trough) + " is not allowed; at most the peak (" + format_number(peak) + ")");
    const double peak_hour = d.non_negative_number("peak_hour", 14.0);
    if (peak_hour >= 24)
      throw core::InputError(d.pointer_of("peak_hour"),
                             format_number(peak_hour) + " is not allowed; an hour from 0 to below 24");
    d.finish();
    profile = requests::LoadProfile::diurnal(peak, trough, peak_hour, duration_s);
  }
  r.finish();
  return profile;
}

}  // namespace

requests::LengthDistribution parse_length(core::JsonReader& w, const std::string& key, int min, int max_tokens) {
  requests::LengthDistribution l;
  const nlohmann::json* raw = w.raw(key);
  if (raw && raw->is_number()) {
    l.mean = w.positive_integer(key, max_tokens);
    if (l.mean < min)
      throw core::InputError(w.pointer_of(key),
                             format_number(l.mean) + " is not allowed; at least " + std::to_string(min));
    l.min = l.max = static_cast<int>(l.mean);
    return l;
  }
  core::JsonReader d = w.object(key);
  const std::string kind = d.one_of("distribution", {"fixed", "uniform", "lognormal", "exponential"});
  l.kind = kind == "fixed"       ? requests::LengthKind::kFixed
           : kind == "uniform"   ? requests::LengthKind::kUniform
           : kind == "lognormal" ? requests::LengthKind::kLognormal
                                 : requests::LengthKind::kExponential;
  l.min = static_cast<int>(d.positive_integer("min", min, max_tokens));
  l.max = static_cast<int>(d.positive_integer("max", max_tokens, max_tokens));
  if (l.max < l.min)
    throw core::InputError(d.pointer_of("max"),
                           std::to_string(l.max) + " is not allowed; at least min (" + std::to_string(l.min) + ")");
  if (l.kind != requests::LengthKind::kUniform) {
    // Lengths are drawn within [min, max]: a mean past max has no draw to give it.
    l.mean = d.positive_number("mean");
    if (l.mean > l.max)
      throw core::InputError(d.pointer_of("mean"), core::describe_number(l.mean) + " is not allowed; at most max (" +
                                                       std::to_string(l.max) + " tokens)");
  }
  if (l.kind == requests::LengthKind::kFixed) {
    if (l.mean < l.min || l.mean != std::floor(l.mean))
      throw core::InputError(d.pointer_of("mean"), core::describe_number(l.mean) +
                                                       " is not allowed; a fixed length is a whole number of "
                                                       "tokens, at least min (" +
                                                       std::to_string(l.min) + ")");
    l.min = l.max = static_cast<int>(l.mean);
  }
  if (l.kind == requests::LengthKind::kLognormal) l.cv = d.positive_number("cv");
  d.finish();
  return l;
}

requests::ArrivalProcess parse_arrivals(core::JsonReader& w, double duration_s, bool streamed) {
  requests::ArrivalProcess p;
  core::JsonReader a = w.object("arrivals");
  if (a.has("rate_per_s") && a.raw("rate_per_s")->is_string()) {
    const std::string rate = a.string("rate_per_s");
    if (rate != "inf")
      throw core::InputError(
          a.pointer_of("rate_per_s"),
          "'" + rate.substr(0, 40) +
              "' is not allowed; a number of requests/s, or \"inf\" (every request at 0 s, with count)");
    p.rate_per_s = std::numeric_limits<double>::infinity();
    p.count = a.positive_integer("count", requests::kMaxRequests);
    a.finish();
    return p;
  }
  const nlohmann::json* rate = a.raw("rate_per_s");
  if (rate && rate->is_object()) {  // a rate over the run
    core::JsonReader profile = a.object("rate_per_s");
    p.profile = parse_profile(profile, duration_s);
    p.rate_per_s = p.profile.expected(0, duration_s) / duration_s;  // the mean
    if (!(p.rate_per_s > 0))
      throw core::InputError(profile.pointer(), "no request arrives within duration_s: give a rate above 0 somewhere");
  } else {
    p.rate_per_s = a.positive_number("rate_per_s");  // a huge one is refused by its request count below
  }
  p.burstiness = a.positive_number("burstiness", 1.0);
  if (p.burstiness < requests::kMinBurstiness)
    throw core::InputError(a.pointer_of("burstiness"), core::describe_number(p.burstiness) +
                                                           " is not allowed; at least " +
                                                           format_number(requests::kMinBurstiness) +
                                                           " (below it the gaps between arrivals round to 0 s)");
  // The pointer of the outlier: the duration when the rate alone would fit in the default 60 s.
  if (!streamed)
    check_request_count(
        p.rate_per_s * 60 <= double(requests::kMaxRequests) ? w.pointer_of("duration_s") : a.pointer_of("rate_per_s"),
        format_number(p.rate_per_s) + " req/s over duration_s " + format_number(duration_s) + " s",
        p.rate_per_s * duration_s);
  a.finish();
  return p;
}

std::vector<int> parse_client_levels(core::JsonReader& w) {
  constexpr int kMaxClients = 1'000'000;
  const nlohmann::json* raw = w.raw("clients");
  const std::string what = "a whole number of clients from 1 to 1000000, or a list of them";
  std::vector<int> levels;
  auto level = [&](const nlohmann::json& v, const std::string& at) {
    // A whole number written as a float (64.0, as Python's JSON may write it) counts as one.
    const bool whole =
        v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>());
    if (!whole || v.get<double>() < 1 || v.get<double>() > kMaxClients)
      throw core::InputError(at, core::describe(v) + " is not allowed; " + what);
    const int n = static_cast<int>(v.get<double>());
    if (std::find(levels.begin(), levels.end(), n) != levels.end())
      throw core::InputError(
          at, core::describe(v) + " is not allowed; a level given twice (each level is its own run and rows)");
    levels.push_back(n);
  };
  if (raw->is_array()) {
    if (raw->empty() || raw->size() > 64)
      throw core::InputError(w.pointer_of("clients"),
                             core::describe(*raw) + " is not allowed; 1 to 64 levels, each " + what);
    for (std::size_t i = 0; i < raw->size(); ++i) level((*raw)[i], w.pointer_of("clients") + "/" + std::to_string(i));
  } else {
    level(*raw, w.pointer_of("clients"));
  }
  return levels;
}

void read_workload(core::JsonReader& w, ServingStudy& s, const workload::Model& m, bool replays) {
  serving::ServingConfig& c = s.config;
  const int max_tokens = m.max_context_tokens > 0 ? m.max_context_tokens : 10'000'000;
  if (w.has("trace")) {
    const std::string given = w.string("trace");
    const std::string path = resolve_input_file(given);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw core::InputError(w.pointer_of("trace"), "'" + given.substr(0, 200) + "' is not a file; tried " +
                                                        joined(input_file_places(given), ", "));
    }
    const std::string format = w.one_of("format", {"azure-csv", "mooncake-jsonl"});
    const double speed = w.positive_number("time_scale", 1.0);
    serving::TraceWindow window;
    window.until_s = c.duration_s * speed * (replays ? kMaxReplayScale : 1.0);
    s.trace = serving::read_trace(
        path, format == "azure-csv" ? serving::TraceFormat::kAzureCsv : serving::TraceFormat::kMooncakeJsonl, window);
    for (auto& q : s.trace) q.arrival_s /= speed;
    s.whole_trace = s.trace;
    std::erase_if(s.trace, [&](const requests::Request& q) { return q.arrival_s >= c.duration_s; });
    if (w.has("prefix_hit_fraction")) {
      const double f = w.non_negative_number("prefix_hit_fraction");
      if (f >= 1)
        throw core::InputError(w.pointer_of("prefix_hit_fraction"),
                               format_number(f) + " is not allowed; a share below 1");
      for (auto* list : {&s.trace, &s.whole_trace})
        for (auto& q : *list) q.set_prefix_hit(f);
    }
    for (const auto& q : s.trace)
      if (q.input_tokens + q.output_tokens > max_tokens)
        throw core::InputError(path + ": line " + std::to_string(q.source_line),
                               std::to_string(q.input_tokens) + " + " + std::to_string(q.output_tokens) +
                                   " tokens is not allowed; " + m.display_name + "'s context is " +
                                   std::to_string(max_tokens) + " tokens");
    // A request that asked for no token still gets the one its prefill makes, as an engine's does.
    const auto no_output =
        std::count_if(s.trace.begin(), s.trace.end(), [](const requests::Request& q) { return q.output_tokens == 0; });
    s.workload_text =
        "Workload: " + std::to_string(s.trace.size()) + " requests from the trace " +
        std::filesystem::path(path).filename().string() +
        (speed != 1 ? " at " + format_number(speed) + "x its pace" : "") + "." +
        (no_output > 0 ? " " + std::to_string(no_output) +
                             " of them ask for 0 output tokens: each is served the one token its prefill makes."
                       : "");
  } else {
    requests::GeneratedWorkload g;
    if (w.has("clients")) {
      if (s.fleet)
        throw core::InputError(
            w.pointer_of("clients"),
            "is not allowed in a fleet over time (a load profile, autoscaling, a cost or series): give arrivals");
      s.client_levels = parse_client_levels(w);
      // Beside arrivals, the clients are a cap on the requests in flight (vLLM's --request-rate
      // with --max-concurrency); alone, each sends its next request when its last one ends.
      s.capped = w.has("arrivals");
      if (s.capped) {
        const nlohmann::json* given = w.raw("arrivals");
        if (given->is_object() && given->contains("rate_per_s") && (*given)["rate_per_s"] == "inf")
          throw core::InputError(w.pointer_of("arrivals") + "/rate_per_s",
                                 "'inf' is not allowed beside clients: every request would be sent at 0 s; "
                                 "give clients alone (each sends its next request when its last one ends)");
        g.arrivals = parse_arrivals(w, c.duration_s, s.fleet);
        if (std::isinf(g.arrivals.rate_per_s))
          throw core::InputError(w.pointer_of("arrivals") + "/rate_per_s",
                                 "'inf' is not allowed beside clients: every request would be sent at 0 s; "
                                 "give clients alone (each sends its next request when its last one ends)");
        for (const char* key : {"think_s", "think"})
          if (w.has(key))
            throw core::InputError(
                w.pointer_of(key),
                shown(*w.raw(key)) +
                    " is not allowed beside arrivals: a pause is for closed-loop clients; beside arrivals, clients cap the requests in flight");
      }
      s.clients.think_s = w.non_negative_number("think_s", 0.0);
      s.clients.exponential_think = w.one_of("think", {"fixed", "exponential"}, "fixed") == "exponential";
      if (s.clients.exponential_think && !(s.clients.think_s > 0))
        throw core::InputError(w.pointer_of("think"),
                               "'exponential' is not allowed without a pause: give think_s, its mean, above 0");
      if (s.clients.think_s >= c.duration_s)
        throw core::InputError(w.pointer_of("think_s"), format_number(s.clients.think_s) +
                                                            " is not allowed; below duration_s (" +
                                                            format_number(c.duration_s) + ")");
      s.clients.clients = s.client_levels.front();
      // At most one request a client per step: a bound to refuse an absurd count before the run.
      for (int level : s.client_levels)
        check_request_count(w.pointer_of("clients"),
                            std::to_string(level) + " clients over duration_s " + format_number(c.duration_s) + " s",
                            double(level));
    } else {
      g.arrivals = parse_arrivals(w, c.duration_s, s.fleet);
    }
    g.input = parse_length(w, "input_tokens", 1, max_tokens);
    g.output = parse_length(w, "output_tokens", 1, max_tokens);
    if (g.input.max + g.output.max > max_tokens)
      throw core::InputError(w.pointer_of("output_tokens"),
                             "prompts up to " + std::to_string(g.input.max) + " and answers up to " +
                                 std::to_string(g.output.max) + " tokens are not allowed; " + m.display_name +
                                 "'s context is " + std::to_string(max_tokens) + " tokens (give max)");
    g.prefix_hit_fraction = w.non_negative_number("prefix_hit_fraction", 0.0);
    if (g.prefix_hit_fraction >= 1)
      throw core::InputError(w.pointer_of("prefix_hit_fraction"),
                             format_number(g.prefix_hit_fraction) + " is not allowed; a share below 1");
    if (w.has("hours"))
      for (auto& h :
           w.object_list("hours", "hours of the run, each with input_scale, output_scale or prefix_hit_fraction")) {
        requests::WorkloadHour hour;
        hour.input_scale = h.positive_number("input_scale", 1.0);
        hour.output_scale = h.positive_number("output_scale", 1.0);
        if (h.has("prefix_hit_fraction")) hour.prefix_hit_fraction = h.non_negative_number("prefix_hit_fraction");
        if (hour.prefix_hit_fraction >= 1)
          throw core::InputError(h.pointer_of("prefix_hit_fraction"),
                                 format_number(hour.prefix_hit_fraction) + " is not allowed; a share below 1");
        // A scale stretches the lengths' bounds too: the longest request it makes must fit the context.
        const long long longest_scaled = requests::longest_request_tokens(g, hour);
        if (longest_scaled > max_tokens)
          throw core::InputError(h.pointer_of(h.has("input_scale") ? "input_scale" : "output_scale"),
                                 "scales the longest request to " + std::to_string(longest_scaled) + " tokens; " +
                                     m.display_name + "'s context is " + std::to_string(max_tokens) + " tokens");
        h.finish();
        g.hours.push_back(hour);
      }
    g.duration_s = c.duration_s;
    g.seed = c.seed;
    s.generated = g;
    if ((s.client_levels.empty() || s.capped) && std::isfinite(g.arrivals.rate_per_s) &&
        requests::first_arrival_s(g) >= g.duration_s)
      throw core::InputError(w.pointer_of("arrivals"),
                             "no request arrives within duration_s; raise rate_per_s or duration_s");
    const std::string arrivals =
        s.capped ? std::string(g.arrivals.burstiness == 1
                                   ? "Poisson"
                                   : "gamma (burstiness " + format_number(g.arrivals.burstiness) + ")") +
                       " arrivals at " + format_number(g.arrivals.rate_per_s) +
                       " requests/s, each sent once fewer than the clients' number are in flight (as `vllm bench serve "
                       "--request-rate R --max-concurrency N` sends them; TTFT from the send)"
        : !s.client_levels.empty()
            ? "closed-loop clients (each sends its next request when its last one ends" +
                  (s.clients.think_s > 0 ? std::string(", after ") +
                                               (s.clients.exponential_think ? "an exponential pause of mean " : "") +
                                               format_number(s.clients.think_s) + " s"
                                         : std::string()) +
                  ")"
        : std::isinf(g.arrivals.rate_per_s)
            ? "every request at 0 s (a benchmark's throughput mode)"
            : std::string(g.arrivals.burstiness == 1
                              ? "Poisson"
                              : "gamma (burstiness " + format_number(g.arrivals.burstiness) + ")") +
                  " arrivals at " + format_number(g.arrivals.rate_per_s) + " requests/s" +
                  (g.arrivals.profile.empty()
                       ? std::string()
                       : " on average (from " +
                             format_number(*std::min_element(g.arrivals.profile.rates_per_s().begin(),
                                                             g.arrivals.profile.rates_per_s().end())) +
                             " to " + format_number(g.arrivals.profile.peak_per_s()) + " over the run)");
    s.workload_text = "Workload: " + arrivals + ", {requests} requests" +
                      (g.prefix_hit_fraction > 0
                           ? ", " + format_number(100 * g.prefix_hit_fraction) + "% of each prompt a prefix-cache hit"
                           : "") +
                      ".";
  }
}

}  // namespace studies::serving_study
