#include <catch2/catch.hpp>
#include <cmath>

#include "core/input_error.hpp"
#include "hw/fp8/float_format.hpp"

using namespace hw::fp8;

namespace {

// Every code decodes and re-encodes to itself; NaN codes stay NaN.
void check_round_trip(const FloatFormat& f) {
  const std::uint32_t codes = 1u << f.total_bits();
  std::uint32_t mismatches = 0;
  for (std::uint32_t c = 0; c < codes; ++c) {
    const double v = decode(f, c);
    if (std::isnan(v)) {
      if (!std::isnan(decode(f, encode(f, v)))) ++mismatches;
      continue;
    }
    if (encode(f, v, Overflow::kNonSaturate) != c) ++mismatches;
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("every code of every format round-trips", "[fp8]") {
  for (const auto* f : {&e4m3(), &e5m2(), &e5m6(), &bf16(), &ue8m0()}) {
    INFO(f->name);
    check_round_trip(*f);
  }
  check_round_trip(fp22());  // 4M codes
}

TEST_CASE("format limits follow the OCP FP8 specification", "[fp8]") {
  CHECK(e4m3().max_finite() == 448);
  CHECK(e4m3().min_normal() == std::ldexp(1.0, -6));
  CHECK(e4m3().min_subnormal() == std::ldexp(1.0, -9));
  CHECK(e5m2().max_finite() == 57344);
  CHECK(e5m2().min_normal() == std::ldexp(1.0, -14));
  CHECK(e5m2().min_subnormal() == std::ldexp(1.0, -16));
  CHECK(bf16().max_finite() == Approx(3.3895313892515355e38));
  CHECK(fp22().mantissa_bits == 13);
  CHECK(encode(e4m3(), 448) == 0x7E);
  CHECK(encode(e5m2(), 57344) == 0x7B);
  CHECK(std::isnan(decode(e4m3(), 0x7F)));
  CHECK(std::isnan(decode(e4m3(), 0xFF)));
  CHECK(decode(e4m3(), 0x78) == 256);  // S.1111.000 is a number in E4M3FN
  CHECK(std::isinf(decode(e5m2(), 0x7C)));
  CHECK(std::isnan(decode(e5m2(), 0x7D)));
  CHECK(decode(e4m3(), 0x80) == 0.0);
  CHECK(std::signbit(decode(e4m3(), 0x80)));
}

TEST_CASE("halfway cases round to even", "[fp8]") {
  // E4M3 around 1: spacing 1/8. 1 + 1/16 is halfway between 1 (even) and 1.125 (odd).
  CHECK(round_to(e4m3(), 1.0625) == 1.0);
  CHECK(round_to(e4m3(), 1.1875) == 1.25);  // halfway between 1.125 (odd) and 1.25 (even)
  CHECK(round_to(e4m3(), 1.0626) == 1.125);
  // E5M2 around 1: spacing 1/4.
  CHECK(round_to(e5m2(), 1.125) == 1.0);
  CHECK(round_to(e5m2(), 1.375) == 1.5);
  // Subnormal halfway: E4M3 quantum 2^-9.
  CHECK(round_to(e4m3(), std::ldexp(1.0, -10)) == 0.0);
  CHECK(round_to(e4m3(), 3 * std::ldexp(1.0, -10)) == std::ldexp(1.0, -8));
  CHECK(round_to(bf16(), 1.0 + std::ldexp(1.0, -8)) == 1.0);
}

TEST_CASE("overflow saturates or becomes NaN or Inf", "[fp8]") {
  CHECK(round_to(e4m3(), 460) == 448);  // rounds down to max
  CHECK(round_to(e4m3(), 464) == 448);  // halfway: max's mantissa is even
  CHECK(round_to(e4m3(), 470, Overflow::kSaturate) == 448);
  CHECK(std::isnan(round_to(e4m3(), 470, Overflow::kNonSaturate)));
  CHECK(std::isnan(round_to(e4m3(), INFINITY, Overflow::kNonSaturate)));
  CHECK(round_to(e4m3(), -INFINITY, Overflow::kSaturate) == -448);
  CHECK(round_to(e5m2(), 61440) == 57344);  // halfway: rounds to even (max)
  CHECK(std::isinf(round_to(e5m2(), 61441, Overflow::kNonSaturate)));
  CHECK(round_to(e5m2(), 1e9, Overflow::kSaturate) == 57344);
  CHECK(std::isinf(round_to(e5m2(), -INFINITY, Overflow::kNonSaturate)));
  CHECK(std::isnan(round_to(e5m2(), NAN)));
}

TEST_CASE("underflow goes to subnormals, then to signed zero", "[fp8]") {
  CHECK(round_to(e4m3(), 0.003) == 2 * std::ldexp(1.0, -9));  // 0.003 / 2^-9 = 1.536 -> 2
  CHECK(round_to(e4m3(), 1e-5) == 0.0);
  CHECK(std::signbit(round_to(e4m3(), -1e-5)));
  CHECK(round_to(e5m2(), std::ldexp(1.0, -16)) == std::ldexp(1.0, -16));
}

TEST_CASE("UE8M0 scales round up to powers of two", "[fp8]") {
  CHECK(round_to(ue8m0(), 1.0) == 1.0);
  CHECK(round_to(ue8m0(), 1.01) == 2.0);
  CHECK(round_to(ue8m0(), 0.3) == 0.5);
  CHECK(std::isnan(round_to(ue8m0(), -1.0)));
}

TEST_CASE("mantissa truncation and rounding for accumulators", "[fp8]") {
  CHECK(truncate_mantissa(1.0 + std::ldexp(1.0, -13) + std::ldexp(1.0, -14), 13) == 1.0 + std::ldexp(1.0, -13));
  CHECK(truncate_mantissa(-3.99, 1) == -3.0);
  CHECK(round_mantissa(1.0 + 3 * std::ldexp(1.0, -15), 13) == 1.0 + std::ldexp(1.0, -13));
}

TEST_CASE("format names", "[fp8]") {
  CHECK(format_by_name("e5m6").mantissa_bits == 6);
  CHECK_THROWS_WITH(format_by_name("e4m2", "--to"), Catch::Contains("did you mean"));
}
