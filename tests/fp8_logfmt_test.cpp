#include <catch2/catch.hpp>
#include <cmath>

#include "core/input_error.hpp"
#include "hw/fp8/format_comparison.hpp"
#include "hw/fp8/logfmt.hpp"

using namespace hw::fp8;

TEST_CASE("LogFMT levels span the tile's min and max, zero is its own code", "[fp8][logfmt]") {
  const std::vector<double> x = {0.0, 1.0, -2.0, 4.0, 8.0, -8.0};
  const auto tile = logfmt_encode(x.data(), static_cast<int>(x.size()), 8);
  CHECK(tile.log_min == 0.0);
  CHECK(tile.log_max == 3.0);
  CHECK(tile.step == Approx(3.0 / 126));
  CHECK(tile.codes[0] == 0);
  const auto y = logfmt_decode(tile, 8);
  CHECK(y[0] == 0.0);
  CHECK(y[1] == Approx(1.0));
  CHECK(y[4] == Approx(8.0));
  CHECK(y[5] == Approx(-8.0));
  CHECK(y[2] == Approx(-2.0).epsilon(0.01));
  CHECK((tile.codes[5] >> 7) == 1u);  // the sign bit
}

TEST_CASE("LogFMT rounds to the nearer level in linear space, not log space", "[fp8][logfmt]") {
  // 3 bits: magnitude codes 1..3, levels 1, 2, 4 (step 1 in log2). 2.9 is nearer 2 in log space
  // (log2 2.9 = 1.54 -> 2^2 = 4 is further by 0.46 vs 0.54...) but in linear space |2.9 - 2| = 0.9
  // < |4 - 2.9| = 1.1, so it decodes to 2; 3.1 decodes to 4.
  const std::vector<double> x = {1.0, 4.0, 2.9, 3.1};
  const auto y = logfmt_decode(logfmt_encode(x.data(), 4, 3), 3);
  CHECK(y[2] == 2.0);
  CHECK(y[3] == 4.0);
}

TEST_CASE("LogFMT clamps the range to 2^32 below the max", "[fp8][logfmt]") {
  const std::vector<double> x = {1.0, 1e-12};
  const auto tile = logfmt_encode(x.data(), 2, 10);
  CHECK(tile.log_min == -32.0);
  CHECK(logfmt_decode(tile, 10)[1] == 0.0);  // 1e-12 is nearer zero than 2^-32
}

TEST_CASE("LogFMT-8 beats E4M3 and E5M2, LogFMT-10 nears BF16, on activation-like data", "[fp8][logfmt]") {
  const auto x = activation_like(1 << 14, 5);
  const double e4m3 = format_error(x, "e4m3").relative_rms;
  const double e5m2 = format_error(x, "e5m2").relative_rms;
  const double log8 = format_error(x, "logfmt-8").relative_rms;
  const double log10 = format_error(x, "logfmt-10").relative_rms;
  const double bf16 = format_error(x, "bf16").relative_rms;
  CHECK(log8 < e4m3);
  CHECK(log8 < e5m2);
  CHECK(log10 < log8 / 3);
  CHECK(log10 < 3 * bf16);
}

TEST_CASE("LogFMT refuses what it cannot encode", "[fp8][logfmt]") {
  const std::vector<double> x = {1.0, NAN};
  CHECK_THROWS_AS(logfmt_encode(x.data(), 2, 8), core::InputError);
  CHECK_THROWS_WITH(logfmt_encode(x.data(), 1, 2), "LogFMT bits: 2 is not from 3 to 16");
  CHECK_THROWS_WITH(format_error({1.0}, "logfmt-x"), Catch::StartsWith("LogFMT bits: 0"));
  CHECK_THROWS_WITH(format_error({1.0}, "e3m4"), Catch::StartsWith("format: 'e3m4' is unknown"));
}
