#include "serving/request_trace.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace serving {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\"");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\"");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(trim(field));
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

// A token count of a trace: a whole number from 0 (outputs) or 1 (prompts) to 10 million.
int token_count(double value, int min, const std::string& where) {
  if (!std::isfinite(value) || value != std::floor(value) || value < min || value > 1e7)
    throw core::InputError(where, core::describe_number(value) + " is not allowed; expected a whole number of tokens from " +
                                      std::to_string(min) + " to 10000000");
  return static_cast<int>(value);
}

double to_number(const std::string& text) {
  std::size_t used = 0;
  const double v = std::stod(text, &used);
  if (used != text.size()) throw std::invalid_argument(text);
  return v;
}

std::vector<Request> parse_azure(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  std::vector<Request> out;
  int number = 0;
  int time_col = -1, in_col = -1, out_col = -1;
  double first_s = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = origin + ": line " + std::to_string(number);
    if (trim(line).empty()) continue;
    const auto f = split_csv(line);
    if (time_col < 0) {
      for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (f[i] == "TIMESTAMP") time_col = i;
        if (f[i] == "ContextTokens") in_col = i;
        if (f[i] == "GeneratedTokens") out_col = i;
      }
      if (time_col < 0 || in_col < 0 || out_col < 0)
        throw core::InputError(where, "'" + trim(line) + "' is not allowed; expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
      continue;
    }
    const int needed = std::max({time_col, in_col, out_col});
    if (static_cast<int>(f.size()) <= needed)
      throw core::InputError(where, "'" + trim(line) + "' has " + std::to_string(f.size()) + " fields; expected " + std::to_string(needed + 1));
    Request r;
    double t = 0, input = 0, output = 0;
    try {
      t = parse_timestamp_s(f[time_col]);
    } catch (const std::exception&) {
      throw core::InputError(where, "TIMESTAMP '" + f[time_col] + "' is not allowed; expected YYYY-MM-DD HH:MM:SS[.ffffff]");
    }
    try {
      input = to_number(f[in_col]);
      output = to_number(f[out_col]);
    } catch (const std::exception&) {
      throw core::InputError(where, "'" + trim(line) + "' is not allowed; ContextTokens and GeneratedTokens must be numbers");
    }
    if (out.empty()) first_s = t;
    r.arrival_s = t - first_s;
    if (r.arrival_s < 0)
      throw core::InputError(where, "TIMESTAMP '" + f[time_col] + "' is before the first request's; expected requests in time order");
    r.input_tokens = token_count(input, 1, where + ": ContextTokens");
    r.output_tokens = token_count(output, 0, where + ": GeneratedTokens");
    r.source_line = number;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Request> parse_mooncake(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  std::vector<Request> out;
  int number = 0;
  double first_ms = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = origin + ": line " + std::to_string(number);
    if (trim(line).empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw core::InputError(where, std::string("malformed JSON: ") + e.what());
    }
    auto number_of = [&](const char* key) {
      if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        throw core::InputError(where, std::string("/") + key + ": missing or not a number; a Mooncake line has timestamp, input_length, output_length");
      return j[key].get<double>();
    };
    Request r;
    const double t_ms = number_of("timestamp");
    if (out.empty()) first_ms = t_ms;
    r.arrival_s = (t_ms - first_ms) / 1000.0;
    if (r.arrival_s < 0 || !std::isfinite(r.arrival_s))
      throw core::InputError(where, "/timestamp: " + std::to_string(t_ms) + " is before the first request's; expected requests in time order");
    r.input_tokens = token_count(number_of("input_length"), 1, where + ": /input_length");
    r.output_tokens = token_count(number_of("output_length"), 0, where + ": /output_length");
    r.source_line = number;
    if (j.contains("hash_ids")) {
      if (!j["hash_ids"].is_array()) throw core::InputError(where, "/hash_ids: expected an array of integers");
      for (const auto& h : j["hash_ids"]) {
        if (!h.is_number_integer()) throw core::InputError(where, "/hash_ids: " + h.dump() + " is not allowed; expected integers");
        r.block_hashes.push_back(static_cast<std::uint64_t>(h.get<long long>()));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

int days_from_civil(int y, int m, int d) {  // Howard Hinnant's algorithm: days since 1970-01-01
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

double parse_timestamp_s(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
  double sec = 0;
  // "2023-11-16 18:15:46.6805900" (the Azure traces; a 'T' also accepted)
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[ T]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
      n != static_cast<int>(text.size()) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61)
    throw std::invalid_argument(text);
  return double(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

std::vector<Request> parse_trace(const std::string& text, TraceFormat format, const std::string& origin) {
  auto out = format == TraceFormat::kAzureCsv ? parse_azure(text, origin) : parse_mooncake(text, origin);
  if (out.empty()) throw core::InputError(origin, "holds no requests");
  return out;
}

std::vector<Request> read_trace(const std::string& path, TraceFormat format) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path, "cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trace(text.str(), format, path);
}

}  // namespace serving
