#pragma once
// What a serving run is judged by, as serving benchmarks report it (notes/serving.md): TTFT
// (arrival to first token), TPOT (mean gap between a request's later tokens), end-to-end latency,
// their percentiles over the requests that arrived in the measured window; throughput per node
// and GPU; goodput, the requests per second that met the SLO. A request still unfinished when the
// run stopped counts by its age then, so an overloaded run's percentiles are lower bounds, never
// 0; an overload is named from the growth of the requests waiting for a first token.
#include <optional>

#include "serving/serving_simulation.hpp"

namespace serving {

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

struct Slo {
  double ttft_s = 0;  // 0: not part of the SLO
  double tpot_s = 0;
};

struct ServingMetrics {
  long long measured = 0;    // requests that arrived in the window
  long long finished = 0;    // ... and finished
  long long unfinished = 0;  // ... and were still in the system when the run stopped
  double stopped_s = 0;      // when the run stopped
  // Over the window's second half: requests arriving, requests given their first token, and
  // whether the ones waiting for it grew by more than a tenth of the arrivals (overloaded).
  double offered_per_s = 0, served_per_s = 0;
  bool overloaded = false;
  Percentiles ttft_s, tpot_s, e2e_s, user_tokens_per_s;
  double request_rate_per_s = 0;  // arrivals in the window
  double input_tokens_per_s = 0;  // prefill, cache hits included
  double computed_input_tokens_per_s = 0;
  double output_tokens_per_s = 0;
  double goodput_requests_per_s = 0;  // measured requests that finished within the SLO
  double slo_attainment = 0;          // share of measured requests within the SLO
};

// The p-th percentile (0-100) of `values`, linearly interpolated; not a number when empty.
double percentile(std::vector<double> values, double p);

ServingMetrics serving_metrics(const ServingResult& result, const ServingConfig& config, const Slo& slo);

// Disaggregated: whether decode is the phase that binds, where TPOT misses the SLO or the measured
// requests wait longer from their prompt's prefill to their first token (a decode unit's pages,
// the transfer, the first step) than from their arrival to their prefill; a saturated decode unit
// binds even while TPOT is within the SLO.
bool decode_binds(const ServingResult& result, const ServingMetrics& metrics, const Slo& slo);

}  // namespace serving
