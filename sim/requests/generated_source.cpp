#include "requests/generated_source.hpp"

#include <cmath>

namespace requests {

GeneratedSource::GeneratedSource(const GeneratedWorkload& w) : w_(w), arrivals_(w.seed), lengths_(w) {}

double GeneratedSource::next_arrival_s() {
  const ArrivalProcess& a = w_.arrivals;
  if (std::isinf(a.rate_per_s)) return given_ < a.count ? 0.0 : INFINITY;
  const double shape = a.burstiness;
  if (a.profile.empty()) return t_s_ += gamma_variate(arrivals_, shape) * (1 / (a.rate_per_s * shape));
  // A gap of the unit-rate process (mean 1) is that many expected requests under the profile.
  return t_s_ = a.profile.advance(t_s_, gamma_variate(arrivals_, shape) / shape);
}

std::optional<Request> GeneratedSource::next() {
  if (std::isinf(t_s_)) return std::nullopt;  // run out
  const double t = next_arrival_s();
  if (!(t < w_.duration_s)) {
    t_s_ = INFINITY;
    return std::nullopt;
  }
  ++given_;
  return lengths_.draw(t);
}

long long GeneratedSource::expected_requests() const {
  const ArrivalProcess& a = w_.arrivals;
  if (std::isinf(a.rate_per_s)) return a.count;
  return std::llround(a.profile.empty() ? a.rate_per_s * w_.duration_s : a.profile.expected(0, w_.duration_s));
}

}  // namespace requests
