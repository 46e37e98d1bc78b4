#include "requests/capped_source.hpp"

#include <algorithm>

namespace requests {

CappedSource::CappedSource(RequestSource& arrivals, int in_flight, double until_s)
    : arrivals_(arrivals), cap_(in_flight), until_s_(until_s) {}

std::optional<Request> CappedSource::next() {
  if (in_flight_ >= cap_) {
    waiting_ = true;
    return std::nullopt;
  }
  if (clock_s_ >= until_s_) return std::nullopt;
  std::optional<Request> q = arrivals_.next();
  if (!q) return q;
  // In order: not before the request ahead of it was sent, nor before the place it takes was free.
  clock_s_ = std::max(q->arrival_s, clock_s_);
  if (clock_s_ >= until_s_) return std::nullopt;
  ++in_flight_;
  q->arrival_s = clock_s_;
  return q;
}

bool CappedSource::finished(const Request& request, double t_s) {
  --in_flight_;
  arrivals_.finished(request, t_s);
  if (!waiting_) return false;
  waiting_ = false;
  clock_s_ = std::max(clock_s_, t_s);
  return true;
}

}  // namespace requests
