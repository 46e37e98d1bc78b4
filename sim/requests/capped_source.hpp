#pragma once
// Arrivals held to a number of requests in flight, as `vllm bench serve --request-rate R
// --max-concurrency N` drives a server: requests come from their source at their own times, and
// each is sent once fewer than N are in flight, in order (a request that finds N in flight waits
// for one to finish). A request's send time is its arrival here: a benchmark client times TTFT
// from it. None is sent at or after `until_s` (the workload's duration): those still waiting then
// are not sent.
#include "requests/request_source.hpp"

namespace requests {

class CappedSource : public RequestSource {
 public:
  // `arrivals` is kept by reference: it outlives this source.
  CappedSource(RequestSource& arrivals, int in_flight, double until_s);

  std::optional<Request> next() override;
  bool finished(const Request& request, double t_s) override;
  long long expected_requests() const override { return arrivals_.expected_requests(); }

 private:
  RequestSource& arrivals_;
  int cap_;
  double until_s_;
  int in_flight_ = 0;     // sent, or returned to be sent at their time
  bool waiting_ = false;  // a request waits for a place: the next finish sends it
  double clock_s_ = 0;    // the latest send, or the finish that ended a wait: none is sent before it
};

}  // namespace requests
