#pragma once
// An arrival rate that changes over the run: steps of equal length, each with its own rate
// (hourly values, or a diurnal curve sampled each minute). Arrivals under it are drawn by time
// rescaling: gaps of a unit-rate process laid over the rate's integral.
#include <limits>
#include <vector>

namespace requests {

class LoadProfile {
 public:
  LoadProfile() = default;
  LoadProfile(std::vector<double> rates_per_s, double step_s);

  // A day's curve: `peak_per_s` at `peak_hour` (0-24), `trough_per_s` twelve hours away, a
  // cosine between them, sampled at the middle of each `step_s` over `duration_s`.
  static LoadProfile diurnal(double peak_per_s, double trough_per_s, double peak_hour, double duration_s,
                             double step_s = 60);

  bool empty() const { return rates_.empty(); }
  double step_s() const { return step_s_; }
  double end_s() const { return step_s_ * double(rates_.size()); }
  const std::vector<double>& rates_per_s() const { return rates_; }
  double rate_at(double t_s) const;
  // Requests expected from `from_s` to `to_s` (the rate's integral).
  double expected(double from_s, double to_s) const;
  double peak_per_s() const;
  LoadProfile scaled(double factor) const;

  // The time at which `units` more expected requests have arrived after `t_s`, or infinity
  // where the profile ends first.
  double advance(double t_s, double units) const;

 private:
  std::vector<double> rates_;
  double step_s_ = 3600;
};

}  // namespace requests
