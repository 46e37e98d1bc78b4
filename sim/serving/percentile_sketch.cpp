#include "serving/percentile_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace serving {

PercentileSketch::PercentileSketch(double relative_accuracy, double min_value, double max_value)
    : gamma_((1 + relative_accuracy) / (1 - relative_accuracy)), log_gamma_(std::log(gamma_)), min_value_(min_value),
      buckets_(static_cast<int>(std::ceil(std::log(max_value / min_value) / log_gamma_)) + 1) {}

int PercentileSketch::bucket(double value) const {
  const double i = std::ceil(std::log(value / min_value_) / log_gamma_);
  return static_cast<int>(std::clamp(i, 0.0, double(buckets_ - 1)));
}

void PercentileSketch::add(double value, long long times) {
  if (times <= 0) return;
  if (!(value >= 0)) value = 0;
  min_ = count_ == 0 ? value : std::min(min_, value);
  max_ = count_ == 0 ? value : std::max(max_, value);
  count_ += times;
  sum_ += value * double(times);
  if (value <= min_value_) {
    zeros_ += times;
    return;
  }
  if (counts_.empty()) counts_.assign(static_cast<std::size_t>(buckets_), 0);
  counts_[static_cast<std::size_t>(bucket(value))] += times;
}

void PercentileSketch::merge(const PercentileSketch& o) {
  if (o.count_ == 0) return;
  min_ = count_ == 0 ? o.min_ : std::min(min_, o.min_);
  max_ = count_ == 0 ? o.max_ : std::max(max_, o.max_);
  count_ += o.count_;
  sum_ += o.sum_;
  zeros_ += o.zeros_;
  if (o.counts_.empty()) return;
  if (counts_.empty()) counts_.assign(static_cast<std::size_t>(buckets_), 0);
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
}

double PercentileSketch::percentile(double p) const {
  if (count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto rank = static_cast<std::int64_t>(std::floor(p / 100 * double(count_ - 1)));
  if (rank < zeros_) return min_;
  std::int64_t seen = zeros_;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen > rank) {
      // The bucket (min gamma^(i-1), min gamma^i]: the value that errs least either way.
      const double value = min_value_ * std::pow(gamma_, double(i)) * 2 / (1 + gamma_);
      return std::clamp(value, min_, max_);
    }
  }
  return max_;
}

double PercentileSketch::mean() const { return count_ > 0 ? sum_ / double(count_) : std::numeric_limits<double>::quiet_NaN(); }

}  // namespace serving
