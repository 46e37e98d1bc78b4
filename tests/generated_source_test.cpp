#include <catch2/catch.hpp>

#include <cmath>

#include "requests/generated_source.hpp"
#include "requests/request_generator.hpp"

using namespace requests;

TEST_CASE("request sources: a drawn workload streams the generator's requests; a profile's hours get their rates",
          "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 40;
  w.arrivals.burstiness = 0.5;
  w.duration_s = 100;
  w.input = {LengthKind::kLognormal, 2000, 1.0, 1, 100000};
  w.output = {LengthKind::kExponential, 300, 0, 1, 4000};
  w.prefix_hit_fraction = 0.25;
  const auto listed = generate_requests(w);
  GeneratedSource source(w);
  std::size_t n = 0;
  while (auto q = source.next()) {
    REQUIRE(n < listed.size());
    CHECK(q->arrival_s == listed[n].arrival_s);
    CHECK(q->input_tokens == listed[n].input_tokens);
    CHECK(q->cached_tokens == listed[n].cached_tokens);
    ++n;
  }
  CHECK(n == listed.size());
  CHECK_FALSE(source.next());

  // Hourly rates of 100, 0 and 300 requests/s over three hours: each hour's count near its rate.
  GeneratedWorkload day = w;
  day.arrivals.burstiness = 1;
  day.arrivals.profile = LoadProfile({100, 0, 300}, 3600);
  day.duration_s = 3 * 3600;
  day.hours = {{1, 1, -1}, {1, 1, -1}, {2, 0.5, 0.9}};
  std::vector<long long> per_hour(3);
  double last = 0, third_input = 0;
  GeneratedSource hours(day);
  while (auto q = hours.next()) {
    CHECK(q->arrival_s >= last);
    last = q->arrival_s;
    const auto h = static_cast<std::size_t>(q->arrival_s / 3600);
    ++per_hour[h];
    if (h == 2) {
      third_input += q->input_tokens;
      CHECK(q->cached_tokens == std::min(q->input_tokens - 1, static_cast<int>(std::floor(0.9 * q->input_tokens))));
    }
  }
  CHECK(per_hour[0] == Approx(360000).epsilon(0.01));
  CHECK(per_hour[1] == 0);
  CHECK(per_hour[2] == Approx(1080000).epsilon(0.01));
  CHECK(third_input / double(per_hour[2]) == Approx(4000).epsilon(0.03));  // the hour's prompts twice as long

  // A fixed length scales as a drawn one does: its bounds are the length, and they scale with it.
  GeneratedWorkload fixed = day;
  fixed.input = {LengthKind::kFixed, 1000, 0, 1000, 1000};
  fixed.output = {LengthKind::kFixed, 200, 0, 200, 200};
  fixed.duration_s = 3 * 3600;
  fixed.arrivals.profile = LoadProfile({10, 0, 30}, 3600);
  GeneratedSource fixed_hours(fixed);
  long long unscaled = 0, scaled = 0, other = 0;
  while (auto q = fixed_hours.next()) {
    const bool third = q->arrival_s >= 2 * 3600;
    if (!third && q->input_tokens == 1000 && q->output_tokens == 200)
      ++unscaled;
    else if (third && q->input_tokens == 2000 && q->output_tokens == 100)
      ++scaled;
    else
      ++other;
  }
  CHECK(unscaled > 0);
  CHECK(scaled > 0);
  CHECK(other == 0);
  CHECK(scaled_bounds(fixed.input, 2.0) == std::pair<long long, long long>{2000, 2000});
  CHECK(scaled_bounds(fixed.output, 1e-9) == std::pair<long long, long long>{1, 1});  // never below a token

  const LoadProfile curve = LoadProfile::diurnal(300, 100, 14, 86400);
  CHECK(curve.rate_at(14 * 3600) == Approx(300).epsilon(1e-3));
  CHECK(curve.rate_at(2 * 3600) == Approx(100).epsilon(1e-3));
  CHECK(curve.expected(0, 86400) == Approx(200 * 86400).epsilon(1e-6));

  // An infinite rate: the count, all at 0 s.
  GeneratedWorkload burst = w;
  burst.arrivals.rate_per_s = INFINITY;
  burst.arrivals.count = 7;
  const auto all = generate_requests(burst);
  REQUIRE(all.size() == 7);
  for (const auto& q : all) CHECK(q.arrival_s == 0);
}
