#include "serving/percentile_sketch.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace serving {

PercentileSketch::PercentileSketch(ByLog, double relative_accuracy, double min_value, double max_value)
    : gamma_((1 + relative_accuracy) / (1 - relative_accuracy)),
      log_gamma_(std::log(gamma_)),
      min_value_(min_value),
      buckets_(static_cast<int>(std::ceil(std::log(max_value / min_value) / log_gamma_)) + 1) {}

PercentileSketch::PercentileSketch(double relative_accuracy, double min_value, double max_value)
    : PercentileSketch(ByLog{}, relative_accuracy, min_value, max_value) {
  if (relative_accuracy == kUsualAccuracy && min_value == kUsualMin && max_value == kUsualMax) table_ = &usual_table();
}

// Values are cut into slices of 1/256 of a binade (a double's exponent and its mantissa's first
// 8 bits). A slice spans at most a ratio of 1 + 1/256, less than a bucket's gamma (1.01 for the
// usual 0.5%), so at most one bucket begins inside it: a value's bucket is its slice's first
// bucket, or the next where the value reaches that bucket's least value. The least values are
// found by bisection over the doubles with the formula itself, so the table is exact.
struct PercentileSketch::Table {
  static constexpr int kSliceShift = 52 - 8;
  std::uint64_t first_slice = 0;
  std::vector<std::uint16_t> at_slice;  // the bucket at each slice's first value
  std::vector<double> least;            // each bucket's least value; least[buckets] is infinite
};

const PercentileSketch::Table& PercentileSketch::usual_table() {
  static const Table table = [] {
    const PercentileSketch by_log(ByLog{}, kUsualAccuracy, kUsualMin, kUsualMax);
    Table t;
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    const auto value = [](std::uint64_t b) { return std::bit_cast<double>(b); };
    const auto n = static_cast<std::size_t>(by_log.buckets_);
    t.least.assign(n + 1, std::numeric_limits<double>::infinity());
    t.least[0] = 0;
    std::uint64_t below = bits(by_log.min_value_);  // a value in a lower bucket than the one sought
    for (std::size_t i = 1; i < n; ++i) {
      std::uint64_t at = bits(std::numeric_limits<double>::infinity());  // one in it or above
      if (const double guess = value(below) * by_log.gamma_ * by_log.gamma_;
          by_log.bucket_by_log(guess) >= static_cast<int>(i))
        at = bits(guess);
      while (at - below > 1) {
        const std::uint64_t mid = below + (at - below) / 2;
        (by_log.bucket_by_log(value(mid)) >= static_cast<int>(i) ? at : below) = mid;
      }
      t.least[i] = value(at);
      below = at;
    }
    t.first_slice = bits(by_log.min_value_) >> Table::kSliceShift;
    const std::uint64_t last_slice = bits(t.least[n - 1]) >> Table::kSliceShift;
    for (std::uint64_t slice = t.first_slice; slice <= last_slice; ++slice)
      t.at_slice.push_back(static_cast<std::uint16_t>(by_log.bucket_by_log(value(slice << Table::kSliceShift))));
    return t;
  }();
  return table;
}

int PercentileSketch::bucket_by_log(double value) const {
  const double i = std::ceil(std::log(value / min_value_) / log_gamma_);
  return static_cast<int>(std::clamp(i, 0.0, double(buckets_ - 1)));
}

int PercentileSketch::bucket(double value) const {
  if (table_) {
    const std::uint64_t slice = (std::bit_cast<std::uint64_t>(value) >> Table::kSliceShift) - table_->first_slice;
    if (slice < table_->at_slice.size()) {  // (else below the least or past the last bucket's start)
      const int first = table_->at_slice[slice];
      return first + static_cast<int>(value >= table_->least[static_cast<std::size_t>(first) + 1]);
    }
  }
  return bucket_by_log(value);
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

double PercentileSketch::mean() const {
  return count_ > 0 ? sum_ / double(count_) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace serving
