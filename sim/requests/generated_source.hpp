#pragma once
// A generated workload (request_generator.hpp) drawn as the run reaches it: Poisson or gamma
// arrivals at a rate, or under a load profile (the same gaps laid over the rate's integral), or
// all at 0 s at an infinite rate; each request's lengths as it arrives. The same seed gives the
// same requests as generate_requests.
#include "requests/request_generator.hpp"
#include "requests/request_source.hpp"

namespace requests {

class GeneratedSource : public RequestSource {
 public:
  // `workload` is kept by reference: it outlives the source.
  explicit GeneratedSource(const GeneratedWorkload& workload);

  std::optional<Request> next() override;
  long long expected_requests() const override;

 private:
  double next_arrival_s();

  const GeneratedWorkload& w_;
  core::FastNormal arrivals_;
  LengthDraws lengths_;
  double t_s_ = 0;
  long long given_ = 0;
};

}  // namespace requests
