#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "requests/generated_source.hpp"
#include "requests/request_generator.hpp"

using namespace requests;

TEST_CASE("request generator: Poisson arrivals at the rate, same seed same stream", "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 50;
  w.duration_s = 200;
  w.input = {LengthKind::kLognormal, 2000, 1.0, 1, 100000};
  w.output = {LengthKind::kFixed, 300, 0, 300, 300};
  const auto a = generate_requests(w), b = generate_requests(w);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    REQUIRE((a[i].arrival_s == b[i].arrival_s && a[i].input_tokens == b[i].input_tokens));
  CHECK(double(a.size()) == Approx(50 * 200).epsilon(0.03));
  double input = 0;
  for (const auto& r : a) {
    input += r.input_tokens;
    CHECK(r.output_tokens == 300);
  }
  CHECK(input / double(a.size()) == Approx(2000).epsilon(0.05));
}

TEST_CASE("request generator: gamma burstiness below 1 spreads the gaps, above 1 evens them", "[serving]") {
  auto gap_cv = [](double burstiness) {
    GeneratedWorkload w;
    w.arrivals.rate_per_s = 100;
    w.arrivals.burstiness = burstiness;
    w.duration_s = 300;
    const auto r = generate_requests(w);
    std::vector<double> gaps;
    for (std::size_t i = 1; i < r.size(); ++i) gaps.push_back(r[i].arrival_s - r[i - 1].arrival_s);
    const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size());
    double var = 0;
    for (double g : gaps) var += (g - mean) * (g - mean);
    CHECK(mean == Approx(0.01).epsilon(0.05));
    return std::sqrt(var / double(gaps.size())) / mean;
  };
  // The gaps of a gamma process with shape k have a CV of 1 / sqrt(k).
  CHECK(gap_cv(1) == Approx(1).epsilon(0.05));
  CHECK(gap_cv(0.25) == Approx(2).epsilon(0.08));
  CHECK(gap_cv(4) == Approx(0.5).epsilon(0.05));
}

TEST_CASE("request generator: a draw past its bound stops there", "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 1000;
  w.duration_s = 10;
  CHECK_THROWS_AS(generate_requests(w, 100), TooManyRequests);
}
