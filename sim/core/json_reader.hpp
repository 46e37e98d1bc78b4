#pragma once
// Typed, validating access to one JSON object of a scenario. Every accessor knows the JSON
// pointer of the field it reads, so each error names the path, the value and what is allowed;
// finish() rejects keys nobody asked for, with a did-you-mean.
#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace core {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& object, std::string pointer);

  const std::string& pointer() const { return pointer_; }
  std::string pointer_of(const std::string& key) const;
  bool has(const std::string& key);

  std::string string(const std::string& key);
  std::optional<std::string> optional_string(const std::string& key);
  // A string no earlier item of its list gave (`taken` holds theirs): ids that rows are named by.
  std::string unique_string(const std::string& key, std::set<std::string>& taken);
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed);
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback);

  double number(const std::string& key);
  double positive_number(const std::string& key);  // > 0 and finite
  double positive_number(const std::string& key, double fallback);
  double non_negative_number(const std::string& key);  // >= 0 and finite
  double non_negative_number(const std::string& key, double fallback);
  // From `min` to `max`: a physical figure's plausible range, so that a value beyond it (a price
  // of 1e308, a rate of 1e-300) is refused here rather than printed as an infinity later.
  double number_in(const std::string& key, double min, double max);
  double number_in(const std::string& key, double min, double max, double fallback);

  long long positive_integer(const std::string& key, long long max_value = kMaxInteger);
  long long positive_integer(const std::string& key, long long fallback, long long max_value);

  long long non_negative_integer(const std::string& key, long long fallback, long long max_value);

  bool boolean(const std::string& key, bool fallback);

  JsonReader object(const std::string& key);
  std::optional<JsonReader> optional_object(const std::string& key);
  std::vector<std::string> string_list(const std::string& key, const std::vector<std::string>& allowed);
  // A non-empty array of numbers from `min` to `max`; integers only, and multiples of
  // `multiple_of`, when asked.
  struct NumberRule {
    double min = 0;
    double max = 0;
    bool integer = false;
    long long multiple_of = 0;
    bool distinct = false;  // each value once (values that name points, rows or runs)
  };
  std::vector<double> number_list(const std::string& key, const NumberRule& rule);
  // A non-empty array of objects, one reader each (pointers .../key/i); `what` names them in
  // the error ("topologies").
  std::vector<JsonReader> object_list(const std::string& key, const std::string& what);

  // The raw value, for callers that interpret it themselves (marks the key as known).
  const nlohmann::json* raw(const std::string& key);

  // Throws for any key of the object that no accessor asked about.
  void finish() const;

  // Requests larger than this are refused before anything is allocated for them.
  static constexpr long long kMaxInteger = 1'000'000'000;

 private:
  const nlohmann::json& require(const std::string& key);
  const nlohmann::json* find(const std::string& key);
  [[noreturn]] void fail(const std::string& key, const nlohmann::json& value, const std::string& expected) const;

  const nlohmann::json& object_;
  std::string pointer_;
  std::set<std::string> known_keys_;
};

// A short rendering of a JSON value for error messages.
std::string describe(const nlohmann::json& value);
std::string describe_number(double x);

// Reads a JSON file: InputError naming the path when it is missing, not a regular file, larger
// than 256 MiB or malformed.
nlohmann::json read_json_file(const std::string& path);
// Parses JSON text; InputError naming `origin` when it is malformed.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

// Nesting deeper than any scenario needs is refused before parsing: copying, printing or freeing
// a JSON value recurses once per level, so an unbounded depth would exhaust the stack. A key given
// twice in one object is refused too: JSON leaves it undefined, and the parser keeps the last, so
// the first would be dropped without a word.
inline constexpr int kMaxJsonDepth = 64;
void check_json_text(const std::string& text, const std::string& origin);

}  // namespace core
