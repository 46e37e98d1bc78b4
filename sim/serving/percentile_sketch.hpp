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
  static constexpr double kUsualAccuracy = 0.005, kUsualMin = 1e-6, kUsualMax = 1e7;
  explicit PercentileSketch(double relative_accuracy = kUsualAccuracy, double min_value = kUsualMin,
                            double max_value = kUsualMax);

  void add(double value, long long times = 1);  // `times` values alike
  void merge(const PercentileSketch& other);

  long long count() const { return count_; }
  // The bucket of a value over the least: ceil(log(value / least) / log(gamma)), within the
  // buckets. `bucket` finds it through a table where the sketch has the usual bounds (the
  // default arguments), value for value the same as `bucket_by_log`, without a log.
  int bucket(double value) const;
  int bucket_by_log(double value) const;
  // The p-th percentile (0-100), at the rank of linear interpolation's lower neighbour; not a number when empty.
  double percentile(double p) const;
  double mean() const;

 private:
  // The usual bounds' buckets by value, made once: a fleet's day adds a third of a billion values
  // on the simulation's own thread, and a log each was a twentieth of its time.
  struct Table;
  static const Table& usual_table();
  struct ByLog {};  // a sketch without the table (the one the table is made with)
  PercentileSketch(ByLog, double relative_accuracy, double min_value, double max_value);

  double gamma_, log_gamma_, min_value_;
  int buckets_;
  const Table* table_ = nullptr;
  std::vector<std::int64_t> counts_;  // allocated at the first value
  std::int64_t zeros_ = 0;            // values at or below min_value
  long long count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace serving
