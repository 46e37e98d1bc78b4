#include "requests/request_generator.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "requests/generated_source.hpp"

namespace requests {

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

std::pair<long long, long long> scaled_bounds(const LengthDistribution& lengths, double scale) {
  const double most = 1 << 30;
  return {std::max(1LL, std::llround(std::min(most, lengths.min * scale))),
          std::max(1LL, std::llround(std::min(most, lengths.max * scale)))};
}

long long longest_request_tokens(const GeneratedWorkload& workload, const WorkloadHour& hour) {
  return scaled_bounds(workload.input, hour.input_scale).second +
         scaled_bounds(workload.output, hour.output_scale).second;
}

namespace {

int draw_length(core::FastNormal& random, const LengthDistribution& l, double scale) {
  double x = l.mean;
  switch (l.kind) {
    case LengthKind::kFixed:
      break;
    case LengthKind::kUniform:
      x = l.min + random.uniform() * (l.max - l.min + 1) - 0.5;
      break;
    case LengthKind::kLognormal: {
      const double sigma2 = std::log1p(l.cv * l.cv);
      x = std::exp(std::log(l.mean) - sigma2 / 2 + std::sqrt(sigma2) * random.normal());
      break;
    }
    case LengthKind::kExponential:
      x = -l.mean * std::log(random.uniform());
      break;
  }
  // An hour's scale stretches the whole distribution, its bounds too (a fixed length is its own
  // bounds: kept to them, it would not scale).
  const auto [low, high] = scaled_bounds(l, scale);
  return static_cast<int>(std::clamp(std::llround(x * scale), low, high));
}

}  // namespace

LengthDraws::LengthDraws(const GeneratedWorkload& w) : w_(w), inputs_(w.seed * 3 + 1), outputs_(w.seed * 5 + 2) {}

Request LengthDraws::draw(double arrival_s) {
  const auto hour = static_cast<std::size_t>(std::max(0.0, arrival_s) / 3600);
  const WorkloadHour mix = hour < w_.hours.size() ? w_.hours[hour] : WorkloadHour{};
  Request r;
  r.arrival_s = arrival_s;
  r.input_tokens = draw_length(inputs_, w_.input, mix.input_scale);
  r.output_tokens = draw_length(outputs_, w_.output, mix.output_scale);
  const double hit = mix.prefix_hit_fraction >= 0 ? mix.prefix_hit_fraction : w_.prefix_hit_fraction;
  if (hit > 0) r.set_prefix_hit(hit);
  return r;
}

double first_arrival_s(const GeneratedWorkload& w) {
  GeneratedSource source(w);
  const auto first = source.next();
  return first ? first->arrival_s : w.duration_s;
}

std::vector<Request> generate_requests(const GeneratedWorkload& w, long long max_requests) {
  GeneratedSource source(w);
  std::vector<Request> out;
  while (auto r = source.next()) {
    if (static_cast<long long>(out.size()) >= max_requests)
      throw TooManyRequests("more than " + std::to_string(max_requests) + " requests drawn before " +
                            std::to_string(w.duration_s) + " s");
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace requests
