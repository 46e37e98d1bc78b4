#pragma once
// Synthetic request streams, seeded and deterministic: arrivals as a Poisson process or a gamma
// process (the gap's shape is the burstiness, as vLLM's benchmark client defines it: 1 is
// Poisson, below 1 burstier, above 1 more regular), prompt and answer lengths from a
// distribution, and a prefix-cache hit share of each prompt.
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/fast_random.hpp"
#include "requests/load_profile.hpp"
#include "requests/request.hpp"

namespace requests {

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
  double rate_per_s = 1;  // infinite: `count` requests all at 0 s (a benchmark's throughput mode)
  double burstiness = 1;  // the gamma shape of the gaps between arrivals; 1: Poisson
  LoadProfile profile;    // where given, the rate over time in place of rate_per_s
  long long count = 0;    // at an infinite rate: the requests
};

// What an hour of the run draws beside its rate: its lengths scaled, its own prefix-hit share.
struct WorkloadHour {
  double input_scale = 1, output_scale = 1;
  double prefix_hit_fraction = -1;  // -1: the workload's
};

struct GeneratedWorkload {
  ArrivalProcess arrivals;
  LengthDistribution input, output;
  double prefix_hit_fraction = 0;   // of each prompt's tokens, served from the prefix cache
  std::vector<WorkloadHour> hours;  // hour i of the run (from 0 s); past the last, the workload's own
  double duration_s = 60;
  std::uint64_t seed = 1;
};

// The bounds of `lengths` in an hour that scales them by `scale`, in whole tokens (at least 1).
std::pair<long long, long long> scaled_bounds(const LengthDistribution& lengths, double scale);
// The longest request `workload` may draw in `hour`: its prompt's and its answer's scaled maxima.
long long longest_request_tokens(const GeneratedWorkload& workload, const WorkloadHour& hour);

// A gamma variate of `shape` and scale 1 (Marsaglia and Tsang; shapes below 1 boosted by U^(1/shape)).
double gamma_variate(core::FastNormal& random, double shape);

// The lengths and prefix hit of a workload's requests, each from its own stream, so that changing
// the lengths does not move the arrivals.
class LengthDraws {
 public:
  explicit LengthDraws(const GeneratedWorkload& workload);
  // A request arriving at `arrival_s`: its prompt, its answer and its hit.
  Request draw(double arrival_s);

 private:
  const GeneratedWorkload& w_;
  core::FastNormal inputs_, outputs_;
};

// Gamma shapes below this make gaps that round to 0 s: the count drawn is no longer near
// rate x duration.
inline constexpr double kMinBurstiness = 0.01;

std::vector<Request> generate_requests(const GeneratedWorkload& workload, long long max_requests = kMaxRequests);

// When the first request arrives (generate_requests' first, whatever the duration): a workload's
// check that any arrives, without drawing them all.
double first_arrival_s(const GeneratedWorkload& workload);

}  // namespace requests
