#include "core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"

namespace core {

namespace {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string describe_number(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

namespace {

// At most `budget` characters of `value` as JSON (then "..."), never more: an array or object is
// written element by element, so a large or deep value costs only what is printed.
void preview(const nlohmann::json& value, std::string& out, std::size_t budget) {
  if (out.size() >= budget) return;
  if (value.is_array() || value.is_object()) {
    out += value.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end() && out.size() < budget; ++it, first = false) {
      if (!first) out += ',';
      if (value.is_object()) out += nlohmann::json(it.key()).dump() + ":";
      preview(it.value(), out, budget);
    }
    out += value.is_array() ? ']' : '}';
    return;
  }
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string describe(const nlohmann::json& value) {
  std::string text;
  preview(value, text, 61);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  const char* type = value.is_string()    ? "a string"
                     : value.is_boolean() ? "a boolean"
                     : value.is_number()  ? "a number"
                     : value.is_array()   ? "an array"
                     : value.is_object()  ? "an object"
                                          : "null";
  return text + " (" + type + ")";
}

JsonReader::JsonReader(const nlohmann::json& object, std::string pointer)
    : object_(object), pointer_(std::move(pointer)) {
  if (!object_.is_object())
    throw InputError(pointer_.empty() ? "/" : pointer_,
                     describe(object_) + " is not an object; expected a JSON object");
}

std::string JsonReader::pointer_of(const std::string& key) const { return pointer_ + "/" + escape_pointer_token(key); }

bool JsonReader::has(const std::string& key) {
  known_keys_.insert(key);
  return object_.contains(key);
}

const nlohmann::json* JsonReader::find(const std::string& key) {
  known_keys_.insert(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

const nlohmann::json* JsonReader::raw(const std::string& key) { return find(key); }

const nlohmann::json& JsonReader::require(const std::string& key) {
  if (const auto* value = find(key)) return *value;
  throw InputError(pointer_of(key), "missing; this field is required");
}

void JsonReader::fail(const std::string& key, const nlohmann::json& value, const std::string& expected) const {
  throw InputError(pointer_of(key), describe(value) + " is not allowed; expected " + expected);
}

std::string JsonReader::string(const std::string& key) {
  const auto& value = require(key);
  if (!value.is_string()) fail(key, value, "a string");
  return value.get<std::string>();
}

std::string JsonReader::unique_string(const std::string& key, std::set<std::string>& taken) {
  std::string value = string(key);
  if (!taken.insert(value).second)
    throw InputError(pointer_of(key),
                     "'" + value.substr(0, 200) +
                         "' is not allowed twice; each item of the list needs its own (rows are named by it)");
  return value;
}

std::optional<std::string> JsonReader::optional_string(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return string(key);
}

std::string JsonReader::one_of(const std::string& key, const std::vector<std::string>& allowed) {
  const auto& value = require(key);
  if (!value.is_string()) fail(key, value, "a string, " + allowed_list("", allowed));
  const auto text = value.get<std::string>();
  for (const auto& a : allowed)
    if (a == text) return text;
  throw InputError(pointer_of(key), "'" + text + "' is unknown; " + allowed_list(text, allowed));
}

std::string JsonReader::one_of(const std::string& key, const std::vector<std::string>& allowed,
                               const std::string& fallback) {
  return has(key) ? one_of(key, allowed) : fallback;
}

double JsonReader::number(const std::string& key) {
  const auto& value = require(key);
  if (!value.is_number()) fail(key, value, "a number");
  const double x = value.get<double>();
  if (!std::isfinite(x)) fail(key, value, "a finite number");
  return x;
}

double JsonReader::positive_number(const std::string& key) {
  const double x = number(key);
  if (!(x > 0)) fail(key, object_.at(key), "a number > 0");
  return x;
}

double JsonReader::positive_number(const std::string& key, double fallback) {
  return has(key) ? positive_number(key) : fallback;
}

double JsonReader::non_negative_number(const std::string& key) {
  const double x = number(key);
  if (!(x >= 0)) fail(key, object_.at(key), "a number >= 0");
  return x;
}

double JsonReader::number_in(const std::string& key, double min, double max) {
  const double x = number(key);
  if (!(x >= min && x <= max))
    fail(key, object_.at(key), "a number from " + describe_number(min) + " to " + describe_number(max));
  return x;
}

double JsonReader::number_in(const std::string& key, double min, double max, double fallback) {
  return has(key) ? number_in(key, min, max) : fallback;
}

double JsonReader::non_negative_number(const std::string& key, double fallback) {
  return has(key) ? non_negative_number(key) : fallback;
}

long long JsonReader::positive_integer(const std::string& key, long long max_value) {
  const auto& value = require(key);
  const std::string expected = "an integer from 1 to " + std::to_string(max_value);
  if (!value.is_number()) fail(key, value, expected);
  const double x = value.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 1 || x > static_cast<double>(max_value))
    fail(key, value, expected);
  return static_cast<long long>(x);
}

long long JsonReader::positive_integer(const std::string& key, long long fallback, long long max_value) {
  return has(key) ? positive_integer(key, max_value) : fallback;
}

long long JsonReader::non_negative_integer(const std::string& key, long long fallback, long long max_value) {
  const auto* value = find(key);
  if (!value) return fallback;
  const std::string expected = "an integer from 0 to " + std::to_string(max_value);
  if (!value->is_number()) fail(key, *value, expected);
  const double x = value->get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x > static_cast<double>(max_value))
    fail(key, *value, expected);
  return static_cast<long long>(x);
}

bool JsonReader::boolean(const std::string& key, bool fallback) {
  const auto* value = find(key);
  if (!value) return fallback;
  if (!value->is_boolean()) fail(key, *value, "true or false");
  return value->get<bool>();
}

JsonReader JsonReader::object(const std::string& key) { return JsonReader(require(key), pointer_of(key)); }

std::optional<JsonReader> JsonReader::optional_object(const std::string& key) {
  if (const auto* value = find(key)) return JsonReader(*value, pointer_of(key));
  return std::nullopt;
}

std::vector<std::string> JsonReader::string_list(const std::string& key, const std::vector<std::string>& allowed) {
  const auto& value = require(key);
  if (!value.is_array() || value.empty()) fail(key, value, "a non-empty array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = pointer_of(key) + "/" + std::to_string(i);
    if (!value[i].is_string()) throw InputError(at, describe(value[i]) + " is not allowed; expected a string");
    const auto text = value[i].get<std::string>();
    bool ok = allowed.empty();
    for (const auto& a : allowed) ok = ok || a == text;
    if (!ok) throw InputError(at, "'" + text + "' is unknown; " + allowed_list(text, allowed));
    // Each item names rows or runs of its own: one given twice would give two of the same.
    if (std::find(out.begin(), out.end(), text) != out.end())
      throw InputError(at, "'" + text + "' is not allowed; it is given twice");
    out.push_back(text);
  }
  return out;
}

std::vector<double> JsonReader::number_list(const std::string& key, const NumberRule& rule) {
  std::string expected = std::string(rule.integer ? "an integer" : "a number") + " from " + describe_number(rule.min) +
                         " to " + describe_number(rule.max);
  if (rule.multiple_of > 0) expected += ", a multiple of " + std::to_string(rule.multiple_of);
  const auto& value = require(key);
  if (!value.is_array() || value.empty()) fail(key, value, "a non-empty array, each " + expected);
  std::vector<double> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto& v = value[i];
    const std::string at = pointer_of(key) + "/" + std::to_string(i);
    const bool ok = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= rule.min &&
                    v.get<double>() <= rule.max && (!rule.integer || v.get<double>() == std::floor(v.get<double>())) &&
                    (rule.multiple_of <= 0 || std::fmod(v.get<double>(), static_cast<double>(rule.multiple_of)) == 0);
    if (!ok) throw InputError(at, describe(v) + " is not allowed; expected " + expected);
    if (rule.distinct && std::find(out.begin(), out.end(), v.get<double>()) != out.end())
      throw InputError(at, describe(v) + " is not allowed; it is given twice (each value is its own point)");
    out.push_back(v.get<double>());
  }
  return out;
}

std::vector<JsonReader> JsonReader::object_list(const std::string& key, const std::string& what) {
  const auto* list = find(key);
  if (!list || !list->is_array() || list->empty())
    throw InputError(pointer_of(key), "expected a non-empty array of " + what);
  std::vector<JsonReader> out;
  for (std::size_t i = 0; i < list->size(); ++i)
    out.emplace_back((*list)[i], pointer_of(key) + "/" + std::to_string(i));
  return out;
}

void JsonReader::finish() const {
  for (const auto& [key, value] : object_.items()) {
    if (known_keys_.count(key)) continue;
    const std::vector<std::string> known(known_keys_.begin(), known_keys_.end());
    throw InputError(pointer_of(key), "unknown key; " + allowed_list(key, known));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  // A device or a pipe could be read forever, and a huge file is not a scenario: refuse both.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError(path, "is not a regular file");
  constexpr std::uintmax_t kMaxBytes = 256u << 20;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxBytes)
    throw InputError(path, std::to_string(size) + " bytes is more than a JSON input may hold (256 MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the file (missing or unreadable)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path);
}

void check_json_text(const std::string& text, const std::string& origin) {
  // One pass over the characters, outside strings: each container's frame, and in an object the
  // keys seen (views into the text: a key is compared as written, escapes and all).
  struct Frame {
    bool object = false;
    bool expecting_key = false;
    std::size_t index = 0;  // an array's element
    std::string_view key;   // an object's latest key
    std::set<std::string_view> keys;
  };
  std::vector<Frame> frames;
  auto pointer = [&](std::size_t depth) {  // of the container frames[depth - 1]
    std::string p;
    for (std::size_t i = 0; i + 1 < depth; ++i)
      p += "/" + (frames[i].object ? std::string(frames[i].key) : std::to_string(frames[i].index));
    return p;
  };
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '"') {
      const std::size_t start = ++at;
      while (at < text.size() && text[at] != '"') at += text[at] == '\\' ? 2 : 1;
      if (frames.empty() || !frames.back().object || !frames.back().expecting_key) continue;
      Frame& f = frames.back();
      f.key = std::string_view(text).substr(start, std::min(at, text.size()) - start);
      f.expecting_key = false;
      if (!f.keys.insert(f.key).second) {
        const std::string where = pointer(frames.size());
        throw InputError(origin, "malformed JSON: the key '" + std::string(f.key) + "' is given twice in " +
                                     (where.empty() ? "the top object" : where) + "; give each key once");
      }
    } else if (c == '{' || c == '[') {
      if (static_cast<int>(frames.size()) >= kMaxJsonDepth)
        throw InputError(origin, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels is not allowed");
      frames.push_back({c == '{', c == '{', 0, {}, {}});
    } else if (c == '}' || c == ']') {
      if (!frames.empty()) frames.pop_back();
    } else if (c == ',' && !frames.empty()) {
      Frame& f = frames.back();
      if (f.object)
        f.expecting_key = true;
      else
        ++f.index;
    }
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  check_json_text(text, origin);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // syntax errors, and numbers too large for a double
    std::string what = e.what();
    if (auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    throw InputError(origin, "malformed JSON: " + what);
  }
}

}  // namespace core
