#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "core/fast_random.hpp"
#include "serving/percentile_sketch.hpp"
#include "serving/serving_metrics.hpp"

using namespace serving;

TEST_CASE("percentile sketch: within its accuracy of the exact percentile, and two merge into one", "[serving]") {
  core::FastNormal random(7);
  std::vector<double> all;
  PercentileSketch whole, first, second;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::exp(0.3 + 1.2 * random.normal());
    all.push_back(x);
    whole.add(x);
    (i % 3 ? first : second).add(x);
  }
  first.merge(second);
  for (const double p : {1.0, 50.0, 90.0, 99.0, 99.9}) {
    INFO("p" << p);
    const double exact = percentile(all, p);
    CHECK(whole.percentile(p) == Approx(exact).epsilon(0.011));
    CHECK(first.percentile(p) == whole.percentile(p));
  }
  CHECK(whole.count() == 200000);
  CHECK(whole.mean() == Approx(std::accumulate(all.begin(), all.end(), 0.0) / double(all.size())));
  PercentileSketch none;
  CHECK(std::isnan(none.percentile(50)));
  none.add(0);
  CHECK(none.percentile(50) == 0);
}

TEST_CASE("percentile sketch: a value's bucket from the table is the log's, at every bucket's edge and between",
          "[serving]") {
  const PercentileSketch sketch;
  const double gamma = (1 + PercentileSketch::kUsualAccuracy) / (1 - PercentileSketch::kUsualAccuracy);
  int edges = 0;
  // Each bucket's edge, found where the log's bucket changes, and the doubles beside it.
  for (double x = PercentileSketch::kUsualMin * 1.0000001; x < PercentileSketch::kUsualMax * 2; x *= gamma) {
    double below = x, above = x * gamma;
    if (sketch.bucket_by_log(below) == sketch.bucket_by_log(above)) continue;
    while (std::nextafter(below, above) < above) {
      const double mid =
          std::midpoint(below, above) > below ? std::midpoint(below, above) : std::nextafter(below, above);
      (sketch.bucket_by_log(mid) == sketch.bucket_by_log(below) ? below : above) = mid;
    }
    ++edges;
    for (const double v : {std::nextafter(below, 0.0), below, above, std::nextafter(above, 1e300)}) {
      INFO(v);
      REQUIRE(sketch.bucket(v) == sketch.bucket_by_log(v));
    }
  }
  CHECK(edges > 2900);
  core::FastNormal random(11);
  for (int i = 0; i < 1000000; ++i) {  // and anywhere, from below the least to past the most
    const double v = std::exp(-16.5 + 34 * random.uniform());
    REQUIRE(sketch.bucket(v) == sketch.bucket_by_log(v));
  }
  const PercentileSketch other(0.01, 1e-3, 1e3);  // (no table: the log)
  CHECK(other.bucket(2.0) == other.bucket_by_log(2.0));
}
