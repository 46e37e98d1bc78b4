#pragma once
// Requests served by units of GPUs, event by event: arrivals, routing, each unit's steps, KV
// cache transfers. Disaggregated: prefill units compute prompts and hand each KV cache over the
// fabric to a decode unit; colocated: each unit mixes prefill chunks into its decode steps. Every
// unit's attention is split into DP ranks (attention groups), each with its own requests and KV
// pages, batched continuously. Where the EP all-to-all joins them (an MoE model), all ranks of a
// unit step together and the busiest sets the step's time; a dense model's DP ranks are
// independent replicas, each stepping on its own clock.
#include <functional>
#include <vector>

#include "requests/request.hpp"
#include "requests/request_source.hpp"
#include "serving/serving_config.hpp"
#include "serving/serving_result.hpp"

namespace serving {

// Bounds on a run, checked by the scenario's reader before anything is allocated for it: the
// requests of a run (kMaxRequests, each with its record and state), and the DP ranks of a
// deployment (each with its queues).
inline constexpr long long kMaxRanks = 100'000;
double bytes_per_request();
double bytes_per_rank();

// `progress(simulated_s)` is called now and then with the simulated time reached. The requests
// come from `source` as the run reaches them; a run holds at most kMaxRequests
// (TooManyRequests).
ServingResult simulate_serving(requests::RequestSource& source, const ServingConfig& config,
                               const std::function<void(double)>& progress = {});
// A list of requests, run in order of arrival.
ServingResult simulate_serving(const std::vector<requests::Request>& requests, const ServingConfig& config,
                               const std::function<void(double)>& progress = {});
// The records streamed to `on_record` as requests finish (and the unfinished at the end) rather
// than kept: a run's memory is then what is in flight, whatever its length, and it holds any
// number of requests.
ServingResult simulate_serving(requests::RequestSource& source, const ServingConfig& config,
                               const std::function<void(double)>& progress,
                               const std::function<void(const RequestRecord&)>& on_record);

}  // namespace serving
