#include "serving/serving_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace serving {

namespace {

double sorted_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double x = p / 100 * double(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(x));
  const std::size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (sorted[j] - sorted[i]) * (x - double(i));
}

Percentiles summarise(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  Percentiles p;
  p.p50 = sorted_percentile(v, 50);
  p.p90 = sorted_percentile(v, 90);
  p.p99 = sorted_percentile(v, 99);
  p.mean = v.empty() ? std::numeric_limits<double>::quiet_NaN()
                     : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return p;
}

// Requests that have arrived by `t` and have no first token yet.
long long waiting_for_first_token(const ServingResult& result, double t) {
  long long n = 0;
  for (const auto& r : result.requests)
    if (r.arrival_s <= t && (r.first_token_s < 0 || r.first_token_s > t)) ++n;
  return n;
}

}  // namespace

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, p);
}

ServingMetrics serving_metrics(const ServingResult& result, const ServingConfig& c, const Slo& slo) {
  ServingMetrics m;
  std::vector<double> ttft, tpot, e2e, user;
  long long good = 0;
  m.stopped_s = result.end_s;
  for (const auto& r : result.requests) {
    if (!r.in_window) continue;
    ++m.measured;
    const bool done = r.finish_s >= 0;
    if (done)
      ++m.finished;
    else
      ++m.unfinished;
    // An unfinished request's figures run to when the run stopped: each is at least that.
    const double end_s = done ? r.finish_s : m.stopped_s;
    const double first = (r.first_token_s >= 0 ? r.first_token_s : end_s) - r.arrival_s;
    ttft.push_back(first);
    e2e.push_back(end_s - r.arrival_s);
    double gap = 0;
    if (r.output_tokens > 1 && r.first_token_s >= 0) {
      gap = (end_s - r.first_token_s) / (r.output_tokens - 1);
      tpot.push_back(gap);
      if (gap > 0) user.push_back(1 / gap);
    }
    if (done && (slo.ttft_s <= 0 || first <= slo.ttft_s) && (slo.tpot_s <= 0 || gap <= slo.tpot_s)) ++good;
  }
  m.ttft_s = summarise(ttft);
  m.tpot_s = summarise(tpot);
  m.e2e_s = summarise(e2e);
  m.user_tokens_per_s = summarise(user);
  const double window = c.duration_s - c.warmup_s;
  m.request_rate_per_s = m.measured / window;
  m.input_tokens_per_s = result.input_tokens_in_window / window;
  m.computed_input_tokens_per_s = result.computed_input_tokens_in_window / window;
  m.output_tokens_per_s = result.output_tokens_in_window / window;
  m.goodput_requests_per_s = good / window;
  m.slo_attainment = m.measured > 0 ? double(good) / double(m.measured) : 0;
  const double mid_s = (c.warmup_s + c.duration_s) / 2, half_s = c.duration_s - mid_s;
  long long arrived = 0;
  for (const auto& r : result.requests)
    if (r.arrival_s > mid_s && r.arrival_s <= c.duration_s) ++arrived;
  const double growth = double(waiting_for_first_token(result, c.duration_s) - waiting_for_first_token(result, mid_s));
  m.offered_per_s = double(arrived) / half_s;
  m.served_per_s = (double(arrived) - growth) / half_s;
  // Overloaded where the requests waiting grew by a tenth of the arrivals, or where most of the
  // window's requests never finished (closed-loop clients beyond what the units hold: their
  // queue cannot grow, it only never drains).
  // An engine's front end that fell behind by half the window is overloaded too.
  m.overloaded =
      growth > 0.1 * double(arrived) || (m.measured > 0 && 2 * m.finished < m.measured) || result.front_end_behind;
  return m;
}

bool decode_binds(const ServingResult& result, const ServingMetrics& m, const Slo& slo) {
  if (slo.tpot_s > 0 && !(m.tpot_s.p90 <= slo.tpot_s)) return true;
  double prefill_wait_s = 0, decode_wait_s = 0;
  for (const auto& q : result.requests) {
    if (!q.in_window) continue;
    prefill_wait_s += (q.prefill_start_s >= 0 ? q.prefill_start_s : result.end_s) - q.arrival_s;
    if (q.prefill_end_s >= 0)
      decode_wait_s += (q.first_token_s >= 0 ? q.first_token_s : result.end_s) - q.prefill_end_s;
  }
  return decode_wait_s > prefill_wait_s;
}

}  // namespace serving
