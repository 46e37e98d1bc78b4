#pragma once
// A run's requests summed as they finish, never kept: per interval of their arrival (5 minutes,
// say) and over the measured window, the counts, the tokens, and TTFT, TPOT and end-to-end
// latency in percentile sketches (a day of a fleet is hundreds of millions of requests).
// Unfinished requests count by their age when the run stopped, as serving_metrics does.
#include <vector>

#include "serving/percentile_sketch.hpp"
#include "serving/serving_metrics.hpp"

namespace serving {

struct RequestTally {
  long long arrived = 0, finished = 0, unfinished = 0, good = 0;  // good: finished within the SLO
  PercentileSketch ttft_s, tpot_s, e2e_s, user_tokens_per_s;
  void merge(const RequestTally& other);
};

class RequestSeries {
 public:
  RequestSeries(double interval_s, const Slo& slo) : interval_s_(interval_s), slo_(slo) {}

  // A finished request, or (finish_s < 0) one unfinished when the run stopped: kept until finish().
  void add(const RequestRecord& record);
  // The run stopped at `stopped_s`: the unfinished requests counted by their age then.
  void finish(double stopped_s);

  const std::vector<RequestTally>& intervals() const { return intervals_; }
  const RequestTally& window() const { return window_; }  // the requests arriving in the measured window

 private:
  void count(const RequestRecord& record, double end_s);

  double interval_s_;
  Slo slo_;
  std::vector<RequestTally> intervals_;
  RequestTally window_;
  std::vector<RequestRecord> unfinished_;
};

// The run's summary (as serving_metrics gives it from kept records) from its streamed requests
// and its intervals; the overload is judged from the requests waiting for a first token at the
// intervals' ends over the window's second half.
ServingMetrics streamed_metrics(const RequestSeries& series, const ServingResult& result, const ServingConfig& config);

}  // namespace serving
