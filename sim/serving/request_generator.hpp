#pragma once
// Synthetic request streams, seeded and deterministic: arrivals as a Poisson process or a gamma
// process (the gap's shape is the burstiness, as vLLM's benchmark client defines it: 1 is
// Poisson, below 1 burstier, above 1 more regular), prompt and answer lengths from a
// distribution, and a prefix-cache hit share of each prompt.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "serving/request.hpp"

namespace serving {

enum class LengthKind { kFixed, kUniform, kLognormal, kExponential };

// Tokens of a prompt or an answer: `fixed` is `mean`; `uniform` from `min` to `max`; `lognormal`
// with `mean` and coefficient of variation `cv`; `exponential` with `mean`. Every draw is
// rounded and kept within [min, max].
struct LengthDistribution {
  LengthKind kind = LengthKind::kFixed;
  double mean = 1;
  double cv = 0;
  int min = 1;
  int max = 1 << 30;
};

struct ArrivalProcess {
  double rate_per_s = 1;
  double burstiness = 1;  // the gamma shape of the gaps between arrivals; 1: Poisson
};

struct GeneratedWorkload {
  ArrivalProcess arrivals;
  LengthDistribution input, output;
  double prefix_hit_fraction = 0;  // of each prompt's tokens, served from the prefix cache
  double duration_s = 60;
  std::uint64_t seed = 1;
};

// Gamma shapes below this make gaps that round to 0 s: the count drawn is no longer near
// rate x duration.
inline constexpr double kMinBurstiness = 0.01;

// Thrown when a draw passes `max_requests` (a bursty process's count varies around its mean).
struct TooManyRequests : std::length_error {
  using std::length_error::length_error;
};

std::vector<Request> generate_requests(const GeneratedWorkload& workload, long long max_requests = kMaxRequests);

// When the first request arrives (generate_requests' first, whatever the duration): a workload's
// check that any arrives, without drawing them all.
double first_arrival_s(const GeneratedWorkload& workload);

}  // namespace serving
