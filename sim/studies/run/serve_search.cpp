#include "studies/run/serve_search.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "studies/report/report.hpp"

namespace studies {

namespace {

// The node a point runs on: its own /cluster/node, or the base's.
std::string node_of(const Sweep& sweep, const SweepPoint& point) {
  for (const auto& [pointer, value] : point.values)
    if (pointer == "/cluster/node" && value.is_string()) return value.get<std::string>();
  const auto& base = sweep.base;
  if (base.contains("cluster") && base["cluster"].is_object() && base["cluster"].contains("node") &&
      base["cluster"]["node"].is_string())
    return base["cluster"]["node"].get<std::string>();
  return "";
}

}  // namespace

ServeSearch load_serve_search(const std::string& path) {
  nlohmann::json document = core::read_json_file(path);
  if (!document.is_object()) throw core::InputError(path, "expected a JSON object: a sweep file with usd_per_gpu_hour");
  if (!document.contains("usd_per_gpu_hour"))
    throw core::InputError(path + ": /usd_per_gpu_hour", "is missing; the price of a GPU-hour, one number or by node");
  const nlohmann::json prices = document["usd_per_gpu_hour"];
  document.erase("usd_per_gpu_hour");
  ServeSearch search;
  search.sweep = parse_sweep(document, path, std::filesystem::path(path).parent_path());
  Sweep& sweep = search.sweep;
  if (sweep.base.value("kind", "") != "serving")
    throw core::InputError(sweep.base_origin + ": /kind", "'" + sweep.base.value("kind", "") +
                                                              "' is not allowed; a search is over a serving scenario");
  if (!sweep.base.contains("slo"))
    throw core::InputError(sweep.base_origin + ": /slo",
                           "is missing; a search finds each configuration's highest rate within an SLO");
  auto price = [&](const std::string& at, const nlohmann::json& v) {
    // The range a scenario's /cost/usd_per_gpu_hour allows.
    if (!v.is_number() || !(v.get<double>() >= 1e-6 && v.get<double>() <= 1e4))
      throw core::InputError(path + ": " + at,
                             core::describe(v) + " is not allowed; a price in USD from 1e-06 to 10000");
    return v.get<double>();
  };
  std::set<std::string> priced_nodes;  // those a point runs on: a price for another is a typo
  if (!prices.is_number() && !prices.is_object())
    throw core::InputError(path + ": /usd_per_gpu_hour",
                           core::describe(prices) + " is not allowed; one price, or an object of node: price");
  for (auto& point : sweep.points) {
    double usd = 0;
    if (prices.is_number()) {
      usd = price("/usd_per_gpu_hour", prices);
    } else {
      const std::string node = node_of(sweep, point);
      if (!prices.contains(node))
        throw core::InputError(path + ": /usd_per_gpu_hour/" + node,
                               "is missing; point " + std::to_string(point.index) + " runs on node '" + node + "'");
      usd = price("/usd_per_gpu_hour/" + node, prices[node]);
      priced_nodes.insert(node);
    }
    point.values.emplace_back("/slo/search", true);
    search.usd_per_gpu_hour.push_back(usd);
  }
  if (prices.is_object())
    for (const auto& [node, value] : prices.items())
      if (!priced_nodes.count(node))
        throw core::InputError(path + ": /usd_per_gpu_hour/" + node,
                               "is not allowed; no point runs on node '" + node + "' (a typo?)");
  if (std::find(sweep.pointers.begin(), sweep.pointers.end(), "/slo/search") == sweep.pointers.end())
    sweep.pointers.push_back("/slo/search");
  return search;
}

std::string serve_search_ranking(const ServeSearch& search, const std::vector<nlohmann::json>& rows,
                                 double load_per_s) {
  const Sweep& sweep = search.sweep;
  const bool at_load = load_per_s > 0;
  struct Ranked {
    double usd = 0, rate = 0, per_gpu = 0, price = 0, gpus = 0;
    double copies = 0, load_gpus = 0, headroom = 0, load_usd = 0;  // at the load: the deployments it needs
    const nlohmann::json* row = nullptr;
  };
  std::vector<Ranked> ranked;
  for (const auto& row : rows) {
    const std::size_t point = row.value("point", search.usd_per_gpu_hour.size());
    if (point >= search.usd_per_gpu_hour.size()) continue;  // a log of another search's points
    Ranked r;
    r.row = &row;
    r.usd = r.load_usd = std::numeric_limits<double>::infinity();
    r.price = search.usd_per_gpu_hour[point];
    if (row.contains("metrics")) {
      const auto& m = row["metrics"];
      auto value = [&](const char* id) { return m.contains(id) && m[id].is_number() ? m[id].get<double>() : 0.0; };
      r.rate = value("slo/max_rate");
      r.per_gpu = value("slo/max_output_per_gpu");
      r.gpus = value("slo/gpus");
      // A GPU-hour over the output tokens one GPU serves in that hour at the highest rate.
      if (r.rate > 0 && r.per_gpu > 0) r.usd = r.price / (r.per_gpu * 3600) * 1e6;
      // At the load: as many copies of the point's deployment as its highest rate divides into
      // the load, rounded up; their GPU-hours over the output tokens the load asks for (a request's
      // output as at the highest rate).
      if (at_load && r.rate > 0 && r.per_gpu > 0 && r.gpus > 0) {
        r.copies = std::ceil(load_per_s / r.rate - 1e-9);
        r.load_gpus = r.copies * r.gpus;
        r.headroom = r.copies * r.rate / load_per_s - 1;
        const double output_per_request = r.per_gpu * r.gpus / r.rate;
        r.load_usd = r.load_gpus * r.price / (load_per_s * output_per_request * 3600) * 1e6;
      }
    }
    ranked.push_back(r);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Ranked& a, const Ranked& b) {
    if (at_load && a.load_usd != b.load_usd) return a.load_usd < b.load_usd;
    return a.usd < b.usd;
  });
  std::vector<std::string> varied;  // the pointers the user's grid sets
  for (const auto& p : sweep.pointers)
    if (p != "/slo/search") varied.push_back(p);
  std::string out = "| rank | point |";
  std::string rule = "|---:|---:|";
  for (const auto& p : varied) {
    out += " " + p + " |";
    rule += "---|";
  }
  out +=
      " USD a GPU-hour | highest rate within the SLO (req/s) | output tokens/s per GPU there | USD per million output tokens |";
  rule += "---:|---:|---:|---:|";
  if (at_load) {
    out += " for " + format_number(load_per_s) + " req/s: copies | GPUs | headroom | USD per million output tokens |";
    rule += "---:|---:|---:|---:|";
  }
  out += "\n" + rule + "\n";
  const std::string blanks = at_load ? " | | | | |" : "";
  int rank = 0;
  for (const auto& r : ranked) {
    const auto& inputs = (*r.row)["inputs"];
    const bool ranks = at_load ? std::isfinite(r.load_usd) : std::isfinite(r.usd);
    out += "| " + (ranks ? std::to_string(++rank) : std::string("–")) + " | " +
           std::to_string((*r.row)["point"].get<std::size_t>()) + " |";
    for (const auto& p : varied)
      out += " " +
             (inputs.contains(p) ? (inputs[p].is_string() ? inputs[p].get<std::string>() : inputs[p].dump())
                                 : std::string()) +
             " |";
    out += " " + format_number(r.price) + " |";
    if (r.row->contains("error")) {
      out += " refused: " + (*r.row)["error"].get<std::string>() + " | | |" + blanks + "\n";
    } else if (!std::isfinite(r.usd)) {
      out += " none meets the SLO | | |" + blanks + "\n";
    } else {
      out += " " + format_number(r.rate) + " | " + format_number(r.per_gpu) + " | " + format_number(r.usd) + " |";
      if (at_load)
        out += std::isfinite(r.load_usd)
                   ? " " + format_number(r.copies) + " | " + format_number(r.load_gpus) + " | " +
                         format_number(std::round(1000 * r.headroom) / 10) + "% | " + format_number(r.load_usd) + " |"
                   : std::string(" | | | |");
      out += "\n";
    }
  }
  return out;
}

}  // namespace studies
