#include "serving/request_trace.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "serving/serving_simulation.hpp"

namespace serving {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// RFC 4180 fields: a quoted field may hold commas and doubled quotes ("1,000" is one field).
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"')
        fields.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"')
        fields.back() += line[++i];
      else
        quoted = false;
    } else if (c == '"' && trim(fields.back()).empty() && !was_quoted) {
      fields.back().clear();
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else if (was_quoted && c != ' ' && c != '\t' && c != '\r') {
      throw core::InputError(where, "text after a quoted field's closing quote is not allowed");
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw core::InputError(where, "a quoted field that is never closed is not allowed");
  for (auto& f : fields) f = trim(f);
  return fields;
}

// A token count of a trace: a whole number from 0 (outputs) or 1 (prompts) to 10 million.
int token_count(double value, int min, const std::string& where) {
  if (!std::isfinite(value) || value != std::floor(value) || value < min || value > 1e7)
    throw core::InputError(where, core::describe_number(value) +
                                      " is not allowed; expected a whole number of tokens from " + std::to_string(min) +
                                      " to 10000000");
  return static_cast<int>(value);
}

// A token count as the traces write it: decimal digits, perhaps a fraction ("374", "374.0");
// no sign, exponent, hex, thousands separator or inf.
double to_number(const std::string& text) {
  const auto digits = text.find_first_not_of("0123456789");
  const bool plain = !text.empty() && digits != 0 &&
                     (digits == std::string::npos ||
                      (text[digits] == '.' && text.find_first_not_of("0123456789", digits + 1) == std::string::npos));
  if (!plain) throw std::invalid_argument(text);
  return std::stod(text);
}

// A trace's lines, one at a time, none longer than the window allows (a longer one is refused
// before it is held whole).
class LineReader {
 public:
  LineReader(std::istream& in, const std::string& origin, std::size_t max_bytes)
      : in_(in), origin_(origin), buffer_(max_bytes + 2) {}

  bool next(std::string& line) {
    in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (in_.fail()) {
      if (got == 0) return false;
      throw core::InputError(where_of(number_ + 1),
                             "a line longer than " + std::to_string(buffer_.size() - 2) + " bytes is not allowed");
    }
    ++number_;
    line.assign(buffer_.data(), in_.eof() ? got : got - 1);
    return true;
  }
  int number() const { return number_; }
  std::string where() const { return where_of(number_); }

 private:
  std::string where_of(int n) const { return origin_ + ": line " + std::to_string(n); }
  std::istream& in_;
  const std::string& origin_;
  std::vector<char> buffer_;
  int number_ = 0;
};

// The requests of a trace as they are read: arrivals from the first request's, in time order,
// up to the window's end.
class Collector {
 public:
  explicit Collector(const TraceWindow& window) : window_(window) {}

  // False once a request arrives past the window: reading stops there.
  bool add(requests::Request r, double time_s, const std::string& where, const std::string& time_text) {
    if (out_.empty()) first_s_ = time_s;
    r.arrival_s = time_s - first_s_;
    if (!(r.arrival_s >= last_s_))
      throw core::InputError(where, time_text + " is before the previous request's; expected requests in time order");
    last_s_ = r.arrival_s;
    if (r.arrival_s >= window_.until_s) return false;
    if (static_cast<long long>(out_.size()) >= window_.max_requests)
      throw core::InputError(where,
                             "more than " + std::to_string(window_.max_requests) + " requests within the " +
                                 core::describe_number(window_.until_s) + " s a run reads (" +
                                 core::describe_number(bytes_per_request() * double(window_.max_requests) / 1e9) +
                                 " GB of request records) are not allowed; shorten duration_s or the trace");
    out_.push_back(std::move(r));
    return true;
  }
  std::vector<requests::Request> take() { return std::move(out_); }

 private:
  const TraceWindow& window_;
  std::vector<requests::Request> out_;
  double first_s_ = 0, last_s_ = 0;
};

std::vector<requests::Request> parse_azure(std::istream& in, const std::string& origin, const TraceWindow& window) {
  LineReader lines(in, origin, window.max_line_bytes);
  Collector requests(window);
  std::string line;
  int time_col = -1, in_col = -1, out_col = -1;
  std::size_t header_fields = 0;
  while (lines.next(line)) {
    const std::string where = lines.where();
    if (trim(line).empty()) continue;
    const auto f = split_csv(line, where);
    if (time_col < 0) {
      header_fields = f.size();
      for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (f[i] == "TIMESTAMP") time_col = i;
        if (f[i] == "ContextTokens") in_col = i;
        if (f[i] == "GeneratedTokens") out_col = i;
      }
      if (time_col < 0 || in_col < 0 || out_col < 0)
        throw core::InputError(where,
                               "'" + trim(line).substr(0, 60) +
                                   "' is not allowed; expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
      continue;
    }
    if (f.size() != header_fields)
      throw core::InputError(where, "'" + trim(line).substr(0, 60) + "' has " + std::to_string(f.size()) +
                                        " fields; expected the header's " + std::to_string(header_fields));
    requests::Request r;
    double t = 0, input = 0, output = 0;
    try {
      t = parse_timestamp_s(f[time_col]);
    } catch (const std::exception&) {
      throw core::InputError(where,
                             "TIMESTAMP '" + f[time_col] + "' is not allowed; expected YYYY-MM-DD HH:MM:SS[.ffffff]");
    }
    try {
      input = to_number(f[in_col]);
      output = to_number(f[out_col]);
    } catch (const std::exception&) {
      throw core::InputError(where, "ContextTokens '" + f[in_col].substr(0, 60) + "' and GeneratedTokens '" +
                                        f[out_col].substr(0, 60) +
                                        "': not allowed; token counts must be numbers in decimal digits");
    }
    r.input_tokens = token_count(input, 1, where + ": ContextTokens");
    r.output_tokens = token_count(output, 0, where + ": GeneratedTokens");
    r.source_line = lines.number();
    if (!requests.add(std::move(r), t, where, "TIMESTAMP '" + f[time_col] + "'")) break;
  }
  return requests.take();
}

std::vector<requests::Request> parse_mooncake(std::istream& in, const std::string& origin, const TraceWindow& window) {
  LineReader lines(in, origin, window.max_line_bytes);
  Collector requests(window);
  std::string line;
  while (lines.next(line)) {
    const std::string where = lines.where();
    if (trim(line).empty()) continue;
    // Refuses deep nesting and numbers past a double's range too, as a scenario's JSON.
    const nlohmann::json j = core::parse_json_text(line, where);
    if (j.is_object())
      for (const auto& [key, value] : j.items())
        if (key != "timestamp" && key != "input_length" && key != "output_length" && key != "hash_ids")
          throw core::InputError(
              where, "/" + key.substr(0, 60) +
                         ": unknown; a Mooncake line has timestamp, input_length, output_length and hash_ids");
    auto number_of = [&](const char* key) {
      if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        throw core::InputError(
            where, std::string("/") + key +
                       ": missing or not a number; a Mooncake line has timestamp, input_length, output_length");
      return j[key].get<double>();
    };
    requests::Request r;
    const double t_ms = number_of("timestamp");
    r.input_tokens = token_count(number_of("input_length"), 1, where + ": /input_length");
    r.output_tokens = token_count(number_of("output_length"), 0, where + ": /output_length");
    r.source_line = lines.number();
    if (j.contains("hash_ids")) {
      if (!j["hash_ids"].is_array()) throw core::InputError(where, "/hash_ids: expected an array of integers");
      for (const auto& h : j["hash_ids"]) {
        if (!h.is_number_integer())
          throw core::InputError(where, "/hash_ids: " + core::describe(h) + " is not allowed; expected integers");
        r.block_hashes.push_back(static_cast<std::uint64_t>(h.get<long long>()));
      }
    }
    if (!std::isfinite(t_ms))
      throw core::InputError(where,
                             "/timestamp: " + core::describe_number(t_ms) + " is not allowed; expected milliseconds");
    if (!requests.add(std::move(r), t_ms / 1000.0, where, "/timestamp: " + core::describe_number(t_ms))) break;
  }
  return requests.take();
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
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
      n != static_cast<int>(text.size()) || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h < 0 || h > 23 ||
      mi < 0 || mi > 59 || !(sec >= 0 && sec < 61) || text.find_first_of("xX+eEinINaA") != std::string::npos)
    throw std::invalid_argument(text);
  return double(days_from_civil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

namespace {

std::vector<requests::Request> read_requests(std::istream& in, TraceFormat format, const std::string& origin,
                                             const TraceWindow& window) {
  auto out = format == TraceFormat::kAzureCsv ? parse_azure(in, origin, window) : parse_mooncake(in, origin, window);
  if (out.empty()) throw core::InputError(origin, "holds no requests");
  return out;
}

}  // namespace

std::vector<requests::Request> parse_trace(const std::string& text, TraceFormat format, const std::string& origin,
                                           const TraceWindow& window) {
  std::istringstream in(text);
  return read_requests(in, format, origin, window);
}

std::vector<requests::Request> read_trace(const std::string& path, TraceFormat format, const TraceWindow& window) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path, "cannot open the file");
  return read_requests(in, format, path, window);
}

}  // namespace serving
