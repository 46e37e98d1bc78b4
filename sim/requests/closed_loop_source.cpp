#include "requests/closed_loop_source.hpp"

#include <cmath>

namespace requests {

ClosedLoopSource::ClosedLoopSource(const GeneratedWorkload& w, const ClientLoop& loop)
    : w_(w), loop_(loop), lengths_(w), think_(w.seed * 11 + 4) {
  for (int c = 0; c < loop.clients; ++c) sends_.push({0.0, c});
}

std::optional<Request> ClosedLoopSource::next() {
  if (sends_.empty()) return std::nullopt;
  const Send s = sends_.top();
  sends_.pop();
  Request r = lengths_.draw(s.t_s);
  r.client = s.client;
  return r;
}

bool ClosedLoopSource::finished(const Request& request, double t_s) {
  if (request.client < 0) return false;
  const double pause = loop_.exponential_think ? -loop_.think_s * std::log(think_.uniform()) : loop_.think_s;
  if (!(t_s + pause < w_.duration_s)) return false;  // the client is done
  sends_.push({t_s + pause, request.client});
  return true;
}

}  // namespace requests
