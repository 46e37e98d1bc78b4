#pragma once
// Requests through an engine's front end (its HTTP server and tokenizer) on their way to the
// engine's queue, in the order sent: the HTTP parsing and hand-off a delay, the tokenizing on the
// front end's one process, so that prompts queue behind each other under load (a server at the
// profile's tokenizing rate); and each finish back to the client the profile's emission later (a
// closed-loop client sends its next request from there). A source in front of another.
#include <algorithm>

#include "serving/engine_profile.hpp"
#include "requests/request_source.hpp"

namespace serving {

class EngineFrontEnd : public requests::RequestSource {
 public:
  // `from_s`, `until_s`: the measured window, by the time a request is sent.
  EngineFrontEnd(requests::RequestSource& sent, const EngineProfile& engine, double from_s = 0, double until_s = 0)
      : sent_(sent), engine_(engine), from_s_(from_s), until_s_(until_s) {}

  std::optional<requests::Request> next() override {
    std::optional<requests::Request> q = sent_.next();
    if (!q) return q;
    q->sent_s = q->arrival_s;
    const double start_s = std::max(q->arrival_s + engine_.frontend_s, free_s_);
    free_s_ = start_s + engine_.tokenize_s_per_token * q->input_tokens;
    if (q->sent_s >= from_s_ && q->sent_s < until_s_) {
      way_in_s_ += free_s_ - q->sent_s;
      ++measured_;
    }
    behind_ = behind_ || (q->sent_s <= (from_s_ + until_s_) / 2 && free_s_ > until_s_);
    q->arrival_s = free_s_;
    return q;
  }
  bool finished(const requests::Request& request, double t_s) override {
    requests::Request as_sent = request;
    as_sent.arrival_s = request.sent_s;
    return sent_.finished(as_sent, t_s + engine_.emit_s);
  }
  long long expected_requests() const override { return sent_.expected_requests(); }

  // The measured requests' mean time from their send to the engine's queue (0: none measured).
  double mean_way_in_s() const { return measured_ > 0 ? way_in_s_ / double(measured_) : 0.0; }
  // Whether a request sent by the window's middle reached the engine only after its end: the
  // front end's one process could not keep up.
  bool behind() const { return behind_; }

 private:
  requests::RequestSource& sent_;
  const EngineProfile& engine_;
  double from_s_, until_s_;
  double free_s_ = 0;  // when the front end's process has tokenized every prompt so far
  double way_in_s_ = 0;
  long long measured_ = 0;
  bool behind_ = false;
};

}  // namespace serving
