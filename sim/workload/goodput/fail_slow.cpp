#include "workload/goodput/fail_slow.hpp"

#include <algorithm>
#include <cmath>

namespace workload {

namespace {

bool excludes(const FailSlow& f) { return f.exclude_after_s > 0; }

}  // namespace

double fail_slow_excluded_share(const FailSlow& f) {
  if (!excludes(f) || f.exclude_after_s >= f.max_s) return 0;
  if (f.exclude_after_s <= f.min_s) return 1;
  return std::log(f.max_s / f.exclude_after_s) / std::log(f.max_s / f.min_s);  // log-uniform tail
}

double fail_slow_mean_slowed_s(const FailSlow& f) {
  const double cut = excludes(f) ? std::min(f.exclude_after_s, f.max_s) : f.max_s;
  if (cut <= f.min_s) return cut;
  if (f.max_s <= f.min_s) return f.min_s;
  const double span = std::log(f.max_s / f.min_s);
  // E[min(D, cut)] for D log-uniform on [min, max]: (cut - min) / span + cut P(D > cut).
  return (cut - f.min_s) / span + cut * std::log(f.max_s / cut) / span;
}

double fail_slow_mean_loss_share(const FailSlow& f) {
  if (f.slowdown_max <= f.slowdown_min) return 1 - 1 / f.slowdown_min;
  return 1 - std::log(f.slowdown_max / f.slowdown_min) / (f.slowdown_max - f.slowdown_min);
}

double fail_slow_duration_s(const FailSlow& f, double u) { return f.min_s * std::pow(f.max_s / f.min_s, u); }

double fail_slow_slowdown(const FailSlow& f, double u) {
  return f.slowdown_min + (f.slowdown_max - f.slowdown_min) * u;
}

}  // namespace workload
