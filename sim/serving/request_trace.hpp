#pragma once
// Public request traces read as published: the Azure LLM inference traces (CSV with
// TIMESTAMP,ContextTokens,GeneratedTokens, the timestamp a date-time) and the Mooncake traces
// (JSON Lines with timestamp in ms, input_length, output_length, hash_ids of 512-token blocks).
// Arrivals start at 0 with the trace's first request. A line that does not parse is an
// InputError naming the file and line.
#include <string>
#include <vector>

#include "serving/request.hpp"

namespace serving {

enum class TraceFormat { kAzureCsv, kMooncakeJsonl };

// The Mooncake traces' block size: one hash id per this many prompt tokens.
inline constexpr int kMooncakeBlockTokens = 512;

std::vector<Request> read_trace(const std::string& path, TraceFormat format);
std::vector<Request> parse_trace(const std::string& text, TraceFormat format, const std::string& origin);

// Seconds since 1970 of "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC); throws std::invalid_argument.
double parse_timestamp_s(const std::string& text);

}  // namespace serving
