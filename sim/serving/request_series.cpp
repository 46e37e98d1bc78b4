#include "serving/request_series.hpp"

#include <algorithm>
#include <cmath>

namespace serving {

void RequestTally::merge(const RequestTally& o) {
  arrived += o.arrived;
  finished += o.finished;
  unfinished += o.unfinished;
  good += o.good;
  ttft_s.merge(o.ttft_s);
  tpot_s.merge(o.tpot_s);
  e2e_s.merge(o.e2e_s);
  user_tokens_per_s.merge(o.user_tokens_per_s);
}

void RequestSeries::add(const RequestRecord& r) {
  if (r.finish_s < 0)
    unfinished_.push_back(r);
  else
    count(r, r.finish_s);
}

void RequestSeries::finish(double stopped_s) {
  for (const auto& r : unfinished_) count(r, stopped_s);
  unfinished_.clear();
}

void RequestSeries::count(const RequestRecord& r, double end_s) {
  const auto i = static_cast<std::size_t>(std::max(0.0, r.arrival_s) / interval_s_);
  if (i >= intervals_.size()) intervals_.resize(i + 1);
  const bool done = r.finish_s >= 0;
  const double first = (r.first_token_s >= 0 ? r.first_token_s : end_s) - r.arrival_s;
  double gap = 0;
  const bool has_gap = r.output_tokens > 1 && r.first_token_s >= 0;
  if (has_gap) gap = (end_s - r.first_token_s) / (r.output_tokens - 1);
  const bool good = done && (slo_.ttft_s <= 0 || first <= slo_.ttft_s) && (slo_.tpot_s <= 0 || gap <= slo_.tpot_s);
  for (RequestTally* t : {&intervals_[i], r.in_window ? &window_ : nullptr}) {
    if (!t) continue;
    ++t->arrived;
    ++(done ? t->finished : t->unfinished);
    t->good += good;
    t->ttft_s.add(first);
    t->e2e_s.add(end_s - r.arrival_s);
    if (has_gap) {
      t->tpot_s.add(gap);
      if (gap > 0) t->user_tokens_per_s.add(1 / gap);
    }
  }
}

namespace {

Percentiles of(const PercentileSketch& s) { return {s.percentile(50), s.percentile(90), s.percentile(99), s.mean()}; }

}  // namespace

ServingMetrics streamed_metrics(const RequestSeries& series, const ServingResult& result, const ServingConfig& c) {
  ServingMetrics m;
  const RequestTally& w = series.window();
  m.measured = w.arrived;
  m.finished = w.finished;
  m.unfinished = w.unfinished;
  m.stopped_s = result.end_s;
  m.ttft_s = of(w.ttft_s);
  m.tpot_s = of(w.tpot_s);
  m.e2e_s = of(w.e2e_s);
  m.user_tokens_per_s = of(w.user_tokens_per_s);
  const double window = c.duration_s - c.warmup_s;
  m.request_rate_per_s = double(m.measured) / window;
  m.input_tokens_per_s = result.input_tokens_in_window / window;
  m.computed_input_tokens_per_s = result.computed_input_tokens_in_window / window;
  m.output_tokens_per_s = result.output_tokens_in_window / window;
  m.goodput_requests_per_s = double(w.good) / window;
  m.slo_attainment = m.measured > 0 ? double(w.good) / double(m.measured) : 0;
  // The second half of the window, in whole intervals.
  const double mid_s = (c.warmup_s + c.duration_s) / 2;
  const auto& iv = result.intervals;
  const auto at = [&](double t) {
    const auto i = static_cast<std::size_t>(std::llround(t / c.interval_s));
    return i >= 1 && i <= iv.size() ? iv[i - 1].waiting_at_end : 0.0;
  };
  long long arrived = 0;
  for (std::size_t i = 0; i < iv.size(); ++i)
    if (double(i) * c.interval_s >= mid_s - 1e-9 && double(i + 1) * c.interval_s <= c.duration_s + 1e-9)
      arrived += iv[i].arrivals;
  const double half_s = c.duration_s - mid_s;
  const double growth = at(c.duration_s) - at(mid_s);
  m.offered_per_s = double(arrived) / half_s;
  m.served_per_s = (double(arrived) - growth) / half_s;
  // Overloaded where the requests waiting grew by a tenth of the arrivals, or where most of the
  // window's requests never finished (closed-loop clients beyond what the units hold: their
  // queue cannot grow, it only never drains).
  m.overloaded = growth > 0.1 * double(arrived) || (m.measured > 0 && 2 * m.finished < m.measured);
  return m;
}

}  // namespace serving
