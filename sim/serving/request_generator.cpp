#include "serving/request_generator.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/fast_random.hpp"

namespace serving {

namespace {

// Marsaglia and Tsang's method; shapes below 1 boosted by U^(1/shape).
double gamma_variate(core::FastNormal& random, double shape) {
  if (shape < 1) return gamma_variate(random, shape + 1) * std::pow(random.uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = random.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = random.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

int draw_length(core::FastNormal& random, const LengthDistribution& l) {
  double x = l.mean;
  switch (l.kind) {
    case LengthKind::kFixed: break;
    case LengthKind::kUniform: x = l.min + random.uniform() * (l.max - l.min + 1) - 0.5; break;
    case LengthKind::kLognormal: {
      const double sigma2 = std::log1p(l.cv * l.cv);
      x = std::exp(std::log(l.mean) - sigma2 / 2 + std::sqrt(sigma2) * random.normal());
      break;
    }
    case LengthKind::kExponential: x = -l.mean * std::log(random.uniform()); break;
  }
  return static_cast<int>(std::clamp(std::llround(x), static_cast<long long>(l.min), static_cast<long long>(l.max)));
}

}  // namespace

double first_arrival_s(const GeneratedWorkload& w) {
  core::FastNormal arrivals(w.seed);
  const double shape = w.arrivals.burstiness, scale = 1 / (w.arrivals.rate_per_s * shape);
  return gamma_variate(arrivals, shape) * scale;
}

std::vector<Request> generate_requests(const GeneratedWorkload& w, long long max_requests) {
  // Separate streams, so that changing the lengths does not move the arrivals.
  core::FastNormal arrivals(w.seed), inputs(w.seed * 3 + 1), outputs(w.seed * 5 + 2);
  std::vector<Request> out;
  const double shape = w.arrivals.burstiness, scale = 1 / (w.arrivals.rate_per_s * shape);
  for (double t = gamma_variate(arrivals, shape) * scale; t < w.duration_s; t += gamma_variate(arrivals, shape) * scale) {
    if (static_cast<long long>(out.size()) >= max_requests)
      throw TooManyRequests("more than " + std::to_string(max_requests) + " requests drawn before " + std::to_string(w.duration_s) + " s");
    Request r;
    r.arrival_s = t;
    r.input_tokens = draw_length(inputs, w.input);
    r.output_tokens = draw_length(outputs, w.output);
    if (w.prefix_hit_fraction > 0) r.set_prefix_hit(w.prefix_hit_fraction);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace serving
