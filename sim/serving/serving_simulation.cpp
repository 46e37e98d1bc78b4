#include "serving/serving_simulation.hpp"

#include "requests/listed_source.hpp"
#include "serving/floor/event_loop.hpp"

namespace serving {

// (A kept run's records are copied out of its requests' state at its end.)
double bytes_per_request() { return double(sizeof(InFlight) + sizeof(RequestRecord)); }
// (A rank's queues take memory only once something is queued.)
double bytes_per_rank() { return double(sizeof(Rank) + sizeof(Unit)); }

ServingResult simulate_serving(requests::RequestSource& source, const ServingConfig& config,
                               const std::function<void(double)>& progress) {
  Floor floor(source, config, progress, {});
  return run(floor);
}

ServingResult simulate_serving(requests::RequestSource& source, const ServingConfig& config,
                               const std::function<void(double)>& progress,
                               const std::function<void(const RequestRecord&)>& on_record) {
  Floor floor(source, config, progress, on_record);
  return run(floor);
}

ServingResult simulate_serving(const std::vector<requests::Request>& requests, const ServingConfig& config,
                               const std::function<void(double)>& progress) {
  requests::ListedSource source(requests);
  return simulate_serving(source, config, progress);
}

}  // namespace serving
