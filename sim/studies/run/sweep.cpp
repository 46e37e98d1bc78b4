#include "studies/run/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "core/version.hpp"
#include "studies/config/overrides.hpp"
#include "studies/report/report.hpp"
#include "studies/run/scenario.hpp"

namespace studies {

namespace {

void add_pointer(Sweep& s, const std::string& pointer, const std::string& where) {
  if (pointer.empty() || pointer[0] != '/')
    throw core::InputError(where, "'" + pointer + "' is not a JSON pointer; it starts with '/'");
  if (std::find(s.pointers.begin(), s.pointers.end(), pointer) == s.pointers.end()) s.pointers.push_back(pointer);
}

// FNV-1a over 64 bits: a fingerprint that is the same on every machine and run (not a secure hash;
// a log is the user's own file).
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

SweepKeys sweep_keys(const Sweep& sweep) {
  // The base and each point's values rather than the scenario they make: the base is hashed once
  // for every point, and a point whose value repeats the base's changes key with the base (rerun,
  // not wrong).
  const std::uint64_t base = fnv1a(std::string(core::kVersion) + "\n" + sweep.base.dump() + "\n");
  SweepKeys keys;
  keys.points.reserve(sweep.points.size());
  std::uint64_t whole = base;
  for (const auto& point : sweep.points) {
    std::uint64_t hash = base;
    for (const auto& [pointer, value] : point.values) hash = fnv1a(pointer + "=" + value.dump() + "\n", hash);
    keys.points.push_back(hex(hash));
    whole = fnv1a(keys.points.back(), whole);
  }
  keys.sweep = hex(whole);
  return keys;
}

Sweep load_sweep(const std::string& path) {
  return parse_sweep(core::read_json_file(path), path, std::filesystem::path(path).parent_path());
}

Sweep parse_sweep(const nlohmann::json& document, const std::string& path, const std::filesystem::path& base_dir) {
  core::JsonReader root(document, "");
  Sweep s;
  const nlohmann::json* base = root.raw("base");
  if (!base) throw core::InputError(path + ": /base", "is missing; name the base scenario (a path) or give it inline");
  if (base->is_string()) {
    const auto file = base_dir / base->get<std::string>();
    s.base = core::read_json_file(file.string());
    s.base_origin = file.string();
  } else if (base->is_object()) {
    s.base = *base;
    s.base_origin = path + " /base";
  } else {
    throw core::InputError(path + ": /base",
                           core::describe(*base) + " is not allowed; expected a path or a scenario object");
  }
  parse_scenario(s.base, s.base_origin);  // the base must be valid on its own

  const nlohmann::json* grid = root.raw("grid");
  const nlohmann::json* points = root.raw("points");
  root.finish();
  if (!grid == !points) throw core::InputError(path + ": /grid", "give either a grid or a list of points");
  if (grid) {
    if (!grid->is_object() || grid->empty())
      throw core::InputError(path + ": /grid", "expected an object of pointer: [values]");
    std::size_t count = 1;
    for (const auto& [pointer, values] : grid->items()) {
      const std::string where = path + ": /grid/" + pointer;
      add_pointer(s, pointer, where);
      if (!values.is_array() || values.empty())
        throw core::InputError(where, core::describe(values) + " is not allowed; expected a non-empty array of values");
      for (std::size_t i = 1; i < values.size(); ++i)  // a value twice would run one point twice
        if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
            values.begin() + static_cast<std::ptrdiff_t>(i))
          throw core::InputError(where + "/" + std::to_string(i),
                                 core::describe(values[i]) + " is not allowed; it is given twice");
      // A pointer the base cannot take fails every point: refused once, before any runs.
      nlohmann::json trial = s.base;
      try {
        apply_override(trial, pointer + "=" + values[0].dump());
      } catch (const core::InputError& e) {
        const std::string why = std::string(e.what()).substr(e.where().empty() ? 0 : e.where().size() + 2);
        throw core::InputError(where, why);
      }
      if (count > kMaxSweepPoints / values.size())
        throw core::InputError(path + ": /grid",
                               "more than " + std::to_string(kMaxSweepPoints) + " points is not allowed");
      count *= values.size();
    }
    s.points.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      s.points[i].index = i;
      std::size_t rest = i;  // the last pointer varies fastest
      std::vector<std::pair<std::string, nlohmann::json>> values;
      for (auto it = grid->items().begin(); it != grid->items().end(); ++it)
        values.emplace_back(it.key(), nlohmann::json());
      std::size_t k = values.size();
      for (auto it = grid->rbegin(); it != grid->rend(); ++it) {
        --k;
        values[k].second = (*it)[rest % it->size()];
        rest /= it->size();
      }
      s.points[i].values = std::move(values);
    }
  } else {
    if (!points->is_array() || points->empty())
      throw core::InputError(path + ": /points", "expected a non-empty array of {pointer: value}");
    if (points->size() > kMaxSweepPoints)
      throw core::InputError(path + ": /points",
                             "more than " + std::to_string(kMaxSweepPoints) + " points is not allowed");
    for (std::size_t i = 0; i < points->size(); ++i) {
      const auto& p = (*points)[i];
      const std::string where = path + ": /points/" + std::to_string(i);
      if (!p.is_object())
        throw core::InputError(where, core::describe(p) + " is not allowed; expected an object of pointer: value");
      SweepPoint point;
      point.index = i;
      for (const auto& [pointer, value] : p.items()) {
        add_pointer(s, pointer, where + pointer);
        point.values.emplace_back(pointer, value);
      }
      s.points.push_back(std::move(point));
    }
  }
  return s;
}

nlohmann::json run_sweep_point(const Sweep& sweep, const SweepPoint& point) {
  nlohmann::json row = {{"point", point.index}, {"inputs", nlohmann::json::object()}};
  for (const auto& [pointer, value] : point.values) row["inputs"][pointer] = value;
  try {
    nlohmann::json document = sweep.base;
    for (const auto& [pointer, value] : point.values) apply_override(document, pointer + "=" + value.dump());
    const Report report = parse_scenario(document, sweep.base_origin).run({});
    nlohmann::json metrics = nlohmann::json::object(), units = nlohmann::json::object();
    for (const auto& r : report.rows) {
      metrics[r.id] = r.ours;
      units[r.id] = r.unit;
    }
    row["metrics"] = std::move(metrics);
    row["units"] = std::move(units);  // a metric's value means nothing without it (M tokens/s)
  } catch (const core::InputError& e) { row["error"] = e.what(); }
  return row;
}

std::string metric_column(const std::string& id, const std::string& unit) {
  std::string suffix;
  for (const char c : unit) {
    const std::string piece = c == '%'                                      ? "pct"
                              : c == '/'                                    ? "_per_"
                              : std::isalnum(static_cast<unsigned char>(c)) ? std::string(1, c)
                                                                            : "_";
    for (const char p : piece)
      if (p != '_' || (!suffix.empty() && suffix.back() != '_')) suffix += p;
  }
  while (!suffix.empty() && suffix.back() == '_') suffix.pop_back();
  const bool ends_in_unit =
      id.size() >= suffix.size() && id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0;
  return suffix.empty() || ends_in_unit ? id : id + "_" + suffix;
}

std::string sweep_csv(const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> inputs, metrics;
  auto note = [](std::vector<std::string>& seen, const nlohmann::json& object) {
    for (const auto& [key, value] : object.items())
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) seen.push_back(key);
  };
  for (const auto& row : rows) {
    note(inputs, row.at("inputs"));
    if (row.contains("metrics")) note(metrics, row["metrics"]);
  }
  std::string text = "point";
  for (const auto& column : inputs) text += "," + csv_field(column);
  for (const auto& id : metrics) {
    std::string unit;  // from the first row that gives it (a log written before units had none)
    for (const auto& row : rows)
      if (row.contains("units") && row["units"].contains(id)) {
        unit = row["units"][id].get<std::string>();
        break;
      }
    text += "," + csv_field(metric_column(id, unit));
  }
  text += ",error\n";
  for (const auto& row : rows) {
    text += std::to_string(row.at("point").get<std::size_t>());
    for (const auto& p : inputs) {
      text += ",";
      if (const auto& in = row.at("inputs"); in.contains(p))
        text += csv_field(in[p].is_string() ? in[p].get<std::string>() : in[p].dump());
    }
    for (const auto& m : metrics) {
      text += ",";
      if (row.contains("metrics") && row["metrics"].contains(m) && row["metrics"][m].is_number())
        text += format_number(row["metrics"][m].get<double>());  // a value not finite is logged as null: left blank
    }
    text += "," + (row.contains("error") ? csv_field(row["error"].get<std::string>()) : std::string()) + "\n";
  }
  return text;
}

}  // namespace studies
