// A serving scenario's generated workload read part by part (workload_reader.hpp).
#include "studies/serving/workload_reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/input_error.hpp"
#include "requests/load_profile.hpp"
#include "serving/serving_simulation.hpp"
#include "studies/report/report.hpp"
#include "studies/serving/serving_limits.hpp"

namespace studies::serving_study {

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
  if (l.kind != requests::LengthKind::kUniform) l.mean = d.positive_number("mean");
  if (l.kind == requests::LengthKind::kFixed) l.min = l.max = static_cast<int>(std::llround(l.mean));
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

}  // namespace studies::serving_study
