#pragma once
// Public request traces read as published: the Azure LLM inference traces (CSV with
// TIMESTAMP,ContextTokens,GeneratedTokens, the timestamp a date-time) and the Mooncake traces
// (JSON Lines with timestamp in ms, input_length, output_length, hash_ids of 512-token blocks).
// Arrivals start at 0 with the trace's first request, and each line is at or after the one
// before. A line that does not parse is an InputError naming the file and line. The file is
// read line by line and only up to the window a run uses.
#include <limits>
#include <string>
#include <vector>

#include "requests/request.hpp"

namespace serving {

enum class TraceFormat { kAzureCsv, kMooncakeJsonl };

// The Mooncake traces' block size: one hash id per this many prompt tokens.
inline constexpr int kMooncakeBlockTokens = 512;

// The part of a trace a run reads: requests arriving before `until_s` (from the first), at most
// `max_requests` of them (more is an InputError), lines of at most `max_line_bytes`.
struct TraceWindow {
  double until_s = std::numeric_limits<double>::infinity();
  long long max_requests = requests::kMaxRequests;
  std::size_t max_line_bytes = 1 << 20;
};

std::vector<requests::Request> read_trace(const std::string& path, TraceFormat format, const TraceWindow& window = {});
std::vector<requests::Request> parse_trace(const std::string& text, TraceFormat format, const std::string& origin,
                                           const TraceWindow& window = {});

// Seconds since 1970 of "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC); throws std::invalid_argument.
double parse_timestamp_s(const std::string& text);

}  // namespace serving
