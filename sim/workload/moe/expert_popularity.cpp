#include "workload/moe/expert_popularity.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/fast_random.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace workload {

const std::vector<double>& ExpertPopularity::layer(int moe_layer) const {
  return layers[static_cast<std::size_t>(std::min<int>(moe_layer, static_cast<int>(layers.size()) - 1))];
}

namespace {

// Shares from non-negative counts; an all-zero row stays all zero.
std::vector<double> normalised(std::vector<double> v) {
  const double sum = std::accumulate(v.begin(), v.end(), 0.0);
  if (sum > 0)
    for (double& x : v) x /= sum;
  return v;
}

}  // namespace

ExpertPopularity read_expert_counts(const std::string& path, int layers, int dense_layers, int experts,
                                    const std::string& pointer) {
  const nlohmann::json doc = core::read_json_file(path);
  auto fail = [&](const std::string& at, const std::string& what) {
    throw core::InputError(pointer, path + at + ": " + what);
  };
  const nlohmann::json* rows = &doc;
  std::string base;
  if (doc.is_object()) {
    if (!doc.contains("logical_count"))
      fail("", "has no \"logical_count\"; expected SGLang's {\"logical_count\": [[count per expert] x layers]}");
    rows = &doc["logical_count"];
    base = "/logical_count";
  }
  auto what = [](const nlohmann::json& v) {
    return v.is_array() ? std::to_string(v.size()) + " rows" : core::describe(v);
  };
  if (!rows->is_array() || rows->size() != static_cast<std::size_t>(layers))
    fail(base, what(*rows) + " is not allowed; expected " + std::to_string(layers) + " (the model's layers), each " +
                   std::to_string(experts) + " counts (its routed experts)");
  ExpertPopularity p;
  p.source = path;
  for (std::size_t l = 0; l < rows->size(); ++l) {
    const auto& row = (*rows)[l];
    const std::string at = base + "/" + std::to_string(l);
    if (!row.is_array() || row.size() != static_cast<std::size_t>(experts))
      fail(at, (row.is_array() ? std::to_string(row.size()) + " counts" : core::describe(row)) +
                   " is not allowed; expected " + std::to_string(experts) + ", one per routed expert of the model");
    std::vector<double> counts;
    counts.reserve(row.size());
    for (std::size_t e = 0; e < row.size(); ++e) {
      if (!row[e].is_number() || !std::isfinite(row[e].get<double>()) || row[e].get<double>() < 0)
        fail(at + "/" + std::to_string(e), core::describe(row[e]) + " is not allowed; a count is a number from 0 up");
      counts.push_back(row[e].get<double>());
    }
    const bool empty = std::all_of(counts.begin(), counts.end(), [](double c) { return c == 0; });
    if (static_cast<int>(l) < dense_layers) continue;  // dense layers route nothing
    if (empty) fail(at, "counts nothing; every MoE layer of the model needs its experts' counts");
    p.layers.push_back(normalised(std::move(counts)));
  }
  return p;
}

ExpertPopularity popularity_from_summary(const nlohmann::json& doc, const std::string& path, const std::string& phase,
                                         int moe_layers, int experts, std::uint64_t seed, const std::string& pointer) {
  auto fail = [&](const std::string& at, const std::string& what) {
    throw core::InputError(pointer, path + at + ": " + what);
  };
  if (!doc.is_object() || !doc.contains("ranks") || !doc.contains(phase))
    fail("", "expected {\"ranks\", \"" + phase + "\": {\"load_over_mean\"}}");
  const auto& ranks = doc["ranks"];
  const auto& rows = doc[phase].value("load_over_mean", nlohmann::json());
  if (!ranks.is_array() || ranks.size() < 2 || ranks.front() != 1 || ranks.back() != experts)
    fail("/ranks", "expected ranks from 1 to the model's " + std::to_string(experts) + " routed experts");
  if (!rows.is_array() || rows.size() != static_cast<std::size_t>(moe_layers))
    fail("/" + phase + "/load_over_mean", "expected " + std::to_string(moe_layers) + " MoE layers (the model's)");
  ExpertPopularity p;
  p.source = path + " (" + phase + ")";
  for (std::size_t l = 0; l < rows.size(); ++l) {
    const auto& row = rows[l];
    if (!row.is_array() || row.size() != ranks.size())
      fail("/" + phase + "/load_over_mean/" + std::to_string(l), "expected one load per rank");
    // The sorted curve at every rank, linear between the given ranks.
    std::vector<double> sorted(static_cast<std::size_t>(experts));
    for (std::size_t i = 0; i + 1 < ranks.size(); ++i) {
      const int r0 = ranks[i].get<int>(), r1 = ranks[i + 1].get<int>();
      const double v0 = row[i].get<double>(), v1 = row[i + 1].get<double>();
      if (v0 < 0 || v1 < 0) fail("/" + phase + "/load_over_mean/" + std::to_string(l), "a load is a number from 0 up");
      for (int r = r0; r <= r1; ++r)
        sorted[static_cast<std::size_t>(r - 1)] = v0 + (v1 - v0) * (r - r0) / std::max(1, r1 - r0);
    }
    // Which expert holds which rank: drawn, as the summary does not keep it.
    std::vector<int> order(static_cast<std::size_t>(experts));
    std::iota(order.begin(), order.end(), 0);
    core::FastNormal rng(seed * 0x9E3779B97F4A7C15ull + l);
    for (std::size_t i = order.size() - 1; i > 0; --i)
      std::swap(order[i], order[static_cast<std::size_t>(rng.next_bits() % (i + 1))]);
    std::vector<double> shares(static_cast<std::size_t>(experts));
    for (std::size_t r = 0; r < sorted.size(); ++r) shares[static_cast<std::size_t>(order[r])] = sorted[r];
    p.layers.push_back(normalised(std::move(shares)));
  }
  return p;
}

namespace {

// Walker's alias table over the shares: one uniform variate draws an expert.
struct AliasTable {
  std::vector<double> keep;
  std::vector<int> alias;
  explicit AliasTable(const std::vector<double>& shares) : keep(shares.size()), alias(shares.size()) {
    const std::size_t n = shares.size();
    std::vector<double> scaled(n);
    const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) scaled[i] = shares[i] / sum * n;
    std::vector<std::size_t> small, large;
    for (std::size_t i = 0; i < n; ++i) (scaled[i] < 1 ? small : large).push_back(i);
    while (!small.empty() && !large.empty()) {
      const std::size_t s = small.back(), l = large.back();
      small.pop_back();
      keep[s] = scaled[s];
      alias[s] = static_cast<int>(l);
      scaled[l] -= 1 - scaled[s];
      if (scaled[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (std::size_t i : small) keep[i] = 1, alias[i] = static_cast<int>(i);
    for (std::size_t i : large) keep[i] = 1, alias[i] = static_cast<int>(i);
  }
  int draw(core::FastNormal& rng) const {
    const double u = rng.uniform() * keep.size();
    const auto i = static_cast<std::size_t>(u);
    return u - i < keep[i] ? static_cast<int>(i) : alias[i];
  }
};

}  // namespace

void extend_routing(Routing& r, const std::vector<double>& shares, int tokens, int top_k, std::uint64_t seed) {
  if (r.tokens >= tokens) return;
  // Drawing k distinct experts one by one, each in proportion to a weight, chooses a hot expert
  // less often than k x its share. Its chance of being chosen is close to 1 - exp(-w t) for some
  // t (Rosen's approximation of successive sampling), so weights w = -ln(1 - k x share) give each
  // expert about k x its share of the tokens, the counts' own.
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  std::vector<double> weights(shares.size());
  for (std::size_t e = 0; e < shares.size(); ++e) weights[e] = -std::log1p(-std::min(0.999, top_k * shares[e] / total));
  const AliasTable table(weights);
  const int nonzero = static_cast<int>(std::count_if(shares.begin(), shares.end(), [](double s) { return s > 0; }));
  const int k = std::min(top_k, nonzero);
  r.top_k = top_k;
  r.experts.reserve(static_cast<std::size_t>(tokens) * top_k);
  for (int t = r.tokens; t < tokens; ++t) {
    // Each token its own stream, so a draw of n tokens is the start of a longer one.
    core::FastNormal rng((seed + 0x632BE59BD9B4E019ull) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(t));
    const std::size_t first = r.experts.size();
    while (static_cast<int>(r.experts.size() - first) < k) {
      const int e = table.draw(rng);
      if (std::find(r.experts.begin() + static_cast<std::ptrdiff_t>(first), r.experts.end(), e) == r.experts.end())
        r.experts.push_back(e);
    }
    // Fewer experts with load than top-k (a sparse file): the token's other picks repeat its last.
    while (static_cast<int>(r.experts.size() - first) < top_k) r.experts.push_back(r.experts.back());
  }
  r.tokens = tokens;
}

Routing draw_routing(const std::vector<double>& shares, int tokens, int top_k, std::uint64_t seed) {
  Routing r;
  r.top_k = top_k;
  extend_routing(r, shares, tokens, top_k, seed);
  return r;
}

double expected_experts_touched(const std::vector<double>& inclusion, double tokens) {
  double touched = 0;
  for (double q : inclusion) touched += 1 - std::pow(1 - std::clamp(q, 0.0, 1.0), tokens);
  return touched;
}

double hottest_over_mean(const std::vector<double>& shares) {
  const double mean = std::accumulate(shares.begin(), shares.end(), 0.0) / double(shares.size());
  return mean > 0 ? *std::max_element(shares.begin(), shares.end()) / mean : 1.0;
}

}  // namespace workload
