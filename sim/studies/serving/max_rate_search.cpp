// The highest request rate within the SLO (serving_run.hpp), for `"slo": {"search": true}` and
// each point of `codesim serve-search` (studies/run/serve_search.hpp): the workload's arrivals
// compressed by a factor found by bisection, and the rows at that rate.
#include "studies/serving/serving_run.hpp"

#include <cmath>

namespace studies::serving_study {

bool ServingStudy::meets(const serving::ServingResult& res, const serving::ServingMetrics& m) const {
  return res.unfinished == 0 && m.finished == m.measured && (slo.ttft_s <= 0 || m.ttft_s.p90 <= slo.ttft_s) &&
         (slo.tpot_s <= 0 || m.tpot_s.p90 <= slo.tpot_s);
}

ServingStudy::Found ServingStudy::find_max_rate(const serving::ServingConfig& c) const {
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
  if (measure(hi, scratch))
    lo = hi;
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

void ServingStudy::search_rows(StudyResult& r, const serving::ServingConfig& c) const {
  const Found f = find_max_rate(c);
  if (!f.any) {
    r.rows.push_back({"slo/max_rate",
                      label_,
                      "highest request rate within the SLO (none: even the lowest tried misses it)",
                      "req/s",
                      {},
                      0.0,
                      Basis::kSimulated});
    r.notes.push_back("No load meets the SLO: at " + format_number(f.rate_per_s) + " requests/s TTFT p90 is " +
                      format_number(f.at.ttft_s.p90) + " s and TPOT p90 " + format_number(f.at.tpot_s.p90 * 1e3) +
                      " ms.");
    return;
  }
  // The rate offered, as serve-plan's one unit reports it (what arrived in the window differs by chance).
  r.rows.push_back(
      {"slo/max_rate", label_, "highest request rate within the SLO", "req/s", {}, f.rate_per_s, Basis::kSimulated});
  r.rows.push_back({"slo/gpus", label_, "GPUs of the deployment", "GPUs", {}, gpus_of(c), Basis::kInput});
  r.rows.push_back({"slo/max_output_per_gpu",
                    label_,
                    "output tokens/s per GPU at that rate",
                    "tokens/s",
                    {},
                    f.at.output_tokens_per_s / gpus_of(c),
                    Basis::kSimulated});
  r.rows.push_back(
      {"slo/ttft_p90_at_max", label_, "TTFT p90 at that rate", "s", {}, f.at.ttft_s.p90, Basis::kSimulated});
  r.rows.push_back(
      {"slo/tpot_p90_at_max", label_, "TPOT p90 at that rate", "ms", {}, f.at.tpot_s.p90 * 1e3, Basis::kSimulated});
}

}  // namespace studies::serving_study
