// The limits of a serving run and their refusals (serving_limits.hpp).
#include "studies/serving/serving_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/input_error.hpp"
#include "serving/serving_simulation.hpp"
#include "studies/report/report.hpp"

namespace studies::serving_study {

std::string gb(double bytes) { return format_number(std::round(bytes / 1e8) / 10); }

void check_run_interval(core::JsonReader& r, const std::string& key, double interval_s, double duration_s,
                        double max_count, const std::string& counted, const std::string& past_run) {
  if (interval_s > duration_s)
    throw core::InputError(r.pointer_of(key), format_number(interval_s) + " s is not allowed; at most duration_s (" +
                                                  format_number(duration_s) + " s)" + past_run);
  if (duration_s / interval_s > max_count)
    throw core::InputError(
        r.pointer_of(key),
        format_number(interval_s) + " s is not allowed: " + format_number(std::ceil(duration_s / interval_s)) + " " +
            counted + " over duration_s " + format_number(duration_s) + " s; at most " + format_number(max_count) +
            " (an interval of at least " + format_number(duration_s / max_count) + " s)");
}

double max_search_scale(double expected_requests) {
  return std::min(kSearchMaxScale, 0.9 * double(requests::kMaxRequests) / expected_requests);
}

std::string short_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

std::string bytes_text(double bytes) {
  return bytes >= 1e12  ? short_number(bytes / 1e12) + " TB"
         : bytes >= 1e9 ? short_number(bytes / 1e9) + " GB"
                        : short_number(bytes / 1e6) + " MB";
}

void check_request_count(const std::string& pointer, const std::string& what, double requests) {
  if (requests <= double(requests::kMaxRequests)) return;
  throw core::InputError(pointer, what + " is not allowed: " + short_number(requests) + " requests, " +
                                      bytes_text(requests * serving::bytes_per_request()) +
                                      " of request records; at most " + short_number(double(requests::kMaxRequests)) +
                                      " requests in a run");
}

void check_rank_count(const std::string& pointer, const std::string& what, double ranks) {
  if (ranks <= double(serving::kMaxRanks)) return;
  throw core::InputError(pointer, what + " is not allowed: " + short_number(ranks) + " DP ranks, " +
                                      bytes_text(ranks * serving::bytes_per_rank()) + " of rank state; at most " +
                                      short_number(double(serving::kMaxRanks)) + " DP ranks in a deployment");
}

}  // namespace studies::serving_study
