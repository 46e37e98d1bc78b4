#pragma once
// What a serving run may hold, and the refusals that name the field past it, before anything is
// drawn or made: the requests and DP ranks of a run, the intervals of a fleet's series and its
// autoscaler's ticks, how far a search or a plan replays the workload; and the numbers as these
// messages write them.
#include <string>

#include "core/json_reader.hpp"

namespace studies::serving_study {

// A fleet's intervals of figures (each keeps its requests' percentile sketches, up to about
// 100 KB, for the whole run, and a day's plan a row each) and its autoscaler's ticks (each an
// event that looks at every unit), over a run.
constexpr double kMaxSeriesIntervals = 10000;
constexpr double kMaxAutoscalingTicks = 1e6;

// `key`, an interval of the run: at most its duration, and at most `max_count` of them in it,
// refused before anything is made for them.
void check_run_interval(core::JsonReader& r, const std::string& key, double interval_s, double duration_s,
                        double max_count, const std::string& counted, const std::string& past_run);

// Searches replay the workload up to 64x its rate and the plan's throughput curve up to 128x: a
// trace is read that far, and the rates they try are held to requests::kMaxRequests a run.
constexpr double kMaxReplayScale = 128;

// serve-plan adds units one at a time while the whole misses the SLO, at most this many.
constexpr int kMaxPlanAdditions = 16;
// An SLO search tries the workload's rate from 1/64 to this many times it.
constexpr double kSearchMaxScale = 64;

// The most an SLO search scales a workload of `expected_requests` at its own rate: kSearchMaxScale,
// held a tenth below the requests a run may hold (a Poisson count at the limit passes it half the time).
double max_search_scale(double expected_requests);

// Refused before anything is drawn: `what` ("1e+12 req/s over duration_s 60 s") implies
// `requests`, more than a run holds.
void check_request_count(const std::string& pointer, const std::string& what, double requests);

// Refused before any unit is made: `what` ("100000 units of 144 DP ranks") implies `ranks`.
void check_rank_count(const std::string& pointer, const std::string& what, double ranks);

// Gigabytes to one decimal; three significant digits; bytes in MB, GB or TB.
std::string gb(double bytes);
std::string short_number(double x);
std::string bytes_text(double bytes);

}  // namespace studies::serving_study
