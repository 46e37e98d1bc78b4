#pragma once
// A fleet's figures by the hour, for a run's series (fleet_run.cpp) and a day's plan (day_plan.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace studies::serving_study {

// A run's figures by the hour, from its `n` intervals of `interval_s` (none where an hour is not a
// whole number of them, or past two days): each hour's mean nodes and requests/s, from `of(i)`,
// interval i's node-seconds and requests.
template <class Row, class Of>
void hour_rows(const Row& row, std::size_t n, double interval_s, double hours, const std::string& nodes_metric,
               const std::string& load_metric, const Of& of) {
  const double per_hour = 3600 / interval_s;
  if (std::abs(per_hour - std::round(per_hour)) >= 1e-9 || hours > 48) return;
  const auto per = static_cast<std::size_t>(std::llround(per_hour));
  for (std::size_t h = 0; double(h) < hours; ++h) {
    double nodes = 0, requests = 0, span = 0;
    for (std::size_t i = h * per; i < std::min(n, (h + 1) * per); ++i) {
      const auto [node_s, arrived] = of(i);
      nodes += node_s;
      requests += arrived;
      span += interval_s;
    }
    if (span <= 0) continue;
    char id[16];
    std::snprintf(id, sizeof id, "%02zu", h);
    row("hour/" + std::string(id) + "/nodes", "hour " + std::string(id) + ": " + nodes_metric, "nodes", nodes / span);
    row("hour/" + std::string(id) + "/load", "hour " + std::string(id) + ": " + load_metric, "req/s", requests / span);
  }
}

}  // namespace studies::serving_study
