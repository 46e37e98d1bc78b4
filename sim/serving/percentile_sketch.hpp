#pragma once
// Percentiles of a stream too long to keep (a day of a fleet's requests): counts in buckets whose
// bounds grow geometrically (DDSketch's scheme, Masson et al., VLDB 2019), so any percentile is
// within a relative accuracy of the value it stands for, the memory is fixed, and two sketches
// merge by adding counts (intervals into a day).
#include <cstdint>
#include <vector>

namespace serving {

class PercentileSketch {
 public:
  // Values from `min_value` to `max_value` are within `relative_accuracy`; beyond, they count in
  // the end buckets (the exact minimum and maximum are kept).
  explicit PercentileSketch(double relative_accuracy = 0.005, double min_value = 1e-6, double max_value = 1e7);

  void add(double value, long long times = 1);  // `times` values alike
  void merge(const PercentileSketch& other);

  long long count() const { return count_; }
  // The p-th percentile (0-100), at the rank of linear interpolation's lower neighbour; not a number when empty.
  double percentile(double p) const;
  double mean() const;

 private:
  int bucket(double value) const;

  double gamma_, log_gamma_, min_value_;
  int buckets_;
  std::vector<std::int64_t> counts_;  // allocated at the first value
  std::int64_t zeros_ = 0;            // values at or below min_value
  long long count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace serving
