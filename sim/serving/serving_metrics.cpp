#include "serving/serving_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace serving {

namespace {

double sorted_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
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
  p.mean = v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return p;
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
  for (const auto& r : result.requests) {
    if (!r.in_window) continue;
    ++m.measured;
    if (r.finish_s < 0) continue;
    ++m.finished;
    const double first = r.first_token_s - r.arrival_s;
    ttft.push_back(first);
    e2e.push_back(r.finish_s - r.arrival_s);
    double gap = 0;
    if (r.output_tokens > 1) {
      gap = (r.finish_s - r.first_token_s) / (r.output_tokens - 1);
      tpot.push_back(gap);
      if (gap > 0) user.push_back(1 / gap);
    }
    if ((slo.ttft_s <= 0 || first <= slo.ttft_s) && (slo.tpot_s <= 0 || gap <= slo.tpot_s)) ++good;
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
  return m;
}

}  // namespace serving
