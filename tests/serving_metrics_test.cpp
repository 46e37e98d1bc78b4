#include <catch2/catch.hpp>

#include <cmath>

#include "serving/serving_metrics.hpp"
#include "serving/serving_simulation.hpp"

using namespace serving;

TEST_CASE("metrics: percentiles interpolate", "[serving]") {
  CHECK(percentile({1, 2, 3, 4, 5}, 50) == 3);
  CHECK(percentile({1, 2, 3, 4, 5}, 90) == Approx(4.6));
  CHECK(std::isnan(percentile({}, 90)));  // not defined, never 0
}

TEST_CASE("metrics: an overload is named, and unfinished requests count by their age when the run stopped",
          "[serving]") {
  ServingConfig c;
  c.warmup_s = 0;
  c.duration_s = 10;
  auto record = [](double arrival_s, double first_s, double finish_s) {
    RequestRecord r;
    r.arrival_s = arrival_s;
    r.input_tokens = 100;
    r.output_tokens = 11;
    r.first_token_s = first_s;
    r.finish_s = finish_s;
    r.in_window = true;
    return r;
  };
  ServingResult served, overloaded;
  for (int i = 0; i < 10; ++i) {
    served.requests.push_back(record(i, i + 0.5, i + 1.5));
    // Two requests served; the rest never reach their first token before the run stops at 100 s.
    overloaded.requests.push_back(i < 2 ? record(i, i + 0.5, i + 1.5) : record(i, -1, -1));
  }
  served.end_s = 10.5;
  overloaded.end_s = 100;
  const auto ok = serving_metrics(served, c, {});
  CHECK_FALSE(ok.overloaded);
  CHECK(ok.ttft_s.p90 == Approx(0.5));
  const auto m = serving_metrics(overloaded, c, {});
  CHECK(m.overloaded);
  CHECK(m.unfinished == 8);
  CHECK(m.offered_per_s == Approx(0.8));  // 4 arrivals in the second half, (5 s, 10 s]

  CHECK(m.served_per_s == Approx(0));
  CHECK(m.ttft_s.p50 == Approx(93.5));  // two of 0.5 s, then the ages 91 to 98 s
  CHECK(m.e2e_s.p99 > 97);
  CHECK(m.tpot_s.p90 == Approx(0.1));  // the two finished requests
}

TEST_CASE("metrics: the phase that binds is where requests wait longest, or decode where TPOT misses", "[serving]") {
  auto record = [](double prefill_wait_s, double decode_wait_s) {
    RequestRecord r;
    r.output_tokens = 11;
    r.prefill_start_s = prefill_wait_s;
    r.prefill_end_s = prefill_wait_s + 0.2;
    r.transfer_end_s = r.prefill_end_s + decode_wait_s;  // admitted, then its KV sent
    r.first_token_s = r.transfer_end_s + 0.05;
    r.finish_s = r.first_token_s + 0.5;  // TPOT 50 ms
    r.in_window = true;
    return r;
  };
  ServingResult saturated_decode, saturated_prefill;
  for (int i = 0; i < 10; ++i) {
    saturated_decode.requests.push_back(record(0.1, 1.5));
    saturated_prefill.requests.push_back(record(1.5, 0.1));
  }
  ServingConfig c;
  c.duration_s = 10;
  const Slo slo{2.0, 0.06};
  CHECK(decode_binds(saturated_decode, serving_metrics(saturated_decode, c, slo),
                     slo));  // TPOT within the SLO, decode saturated
  CHECK_FALSE(decode_binds(saturated_prefill, serving_metrics(saturated_prefill, c, slo), slo));
  const Slo tight{2.0, 0.04};
  CHECK(decode_binds(saturated_prefill, serving_metrics(saturated_prefill, c, tight), tight));
}
