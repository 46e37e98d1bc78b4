#include "requests/load_profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace requests {

LoadProfile::LoadProfile(std::vector<double> rates_per_s, double step_s)
    : rates_(std::move(rates_per_s)), step_s_(step_s) {}

LoadProfile LoadProfile::diurnal(double peak_per_s, double trough_per_s, double peak_hour, double duration_s,
                                 double step_s) {
  std::vector<double> rates;
  for (double t = 0; t < duration_s; t += step_s) {
    const double hours = (t + step_s / 2) / 3600 - peak_hour;
    rates.push_back(trough_per_s + (peak_per_s - trough_per_s) * (1 + std::cos(2 * std::numbers::pi * hours / 24)) / 2);
  }
  return {std::move(rates), step_s};
}

double LoadProfile::rate_at(double t_s) const {
  if (rates_.empty() || t_s < 0 || t_s >= end_s()) return 0;
  return rates_[std::min(rates_.size() - 1, static_cast<std::size_t>(t_s / step_s_))];
}

double LoadProfile::expected(double from_s, double to_s) const {
  double sum = 0;
  from_s = std::max(0.0, from_s);
  to_s = std::min(to_s, end_s());
  while (from_s < to_s) {
    const auto i = std::min(rates_.size() - 1, static_cast<std::size_t>(from_s / step_s_));
    const double until = std::min(to_s, double(i + 1) * step_s_);
    sum += rates_[i] * (until - from_s);
    if (until <= from_s) break;
    from_s = until;
  }
  return sum;
}

double LoadProfile::peak_per_s() const { return rates_.empty() ? 0 : *std::max_element(rates_.begin(), rates_.end()); }

LoadProfile LoadProfile::scaled(double factor) const {
  LoadProfile p = *this;
  for (auto& r : p.rates_) r *= factor;
  return p;
}

double LoadProfile::advance(double t, double units) const {
  auto i = static_cast<std::size_t>(std::max(0.0, t) / step_s_);
  while (i < rates_.size()) {
    const double step_end = double(i + 1) * step_s_;
    const double room = (step_end - t) * rates_[i];
    if (units <= room && rates_[i] > 0) return std::min(step_end, t + units / rates_[i]);
    units -= room;
    t = step_end;
    ++i;
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace requests
