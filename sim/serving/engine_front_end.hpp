#pragma once
// Requests through an engine's front end (its HTTP server and tokenizer) on their way to the
// engine's queue, each the profile's front-end delay later (a delay, not a queue: API servers
// scale with the deployment), in the order sent; and each finish back to the client the
// profile's emission later (a closed-loop client sends its next request from there). A source in
// front of another.
#include <algorithm>

#include "serving/engine_profile.hpp"
#include "requests/request_source.hpp"

namespace serving {

class EngineFrontEnd : public RequestSource {
 public:
  EngineFrontEnd(RequestSource& sent, const EngineProfile& engine) : sent_(sent), engine_(engine) {}

  std::optional<Request> next() override {
    std::optional<Request> q = sent_.next();
    if (!q) return q;
    q->sent_s = q->arrival_s;
    last_s_ = std::max(last_s_, q->arrival_s + engine_.frontend_delay_s(q->input_tokens));
    q->arrival_s = last_s_;
    return q;
  }
  bool finished(const Request& request, double t_s) override {
    Request as_sent = request;
    as_sent.arrival_s = request.sent_s;
    return sent_.finished(as_sent, t_s + engine_.emit_s);
  }
  long long expected_requests() const override { return sent_.expected_requests(); }

 private:
  RequestSource& sent_;
  const EngineProfile& engine_;
  double last_s_ = 0;  // the latest arrival at the engine so far
};

}  // namespace serving
