#pragma once
// Small binary floating-point formats, bit-exact: E4M3 (OCP "FN": no Inf, one NaN code, max 448),
// E5M2 (IEEE-like, max 57344), E5M6 (the report's format for the inputs of the linear after
// attention), BF16, FP22 (Hopper's FP8 accumulator: 1 sign, 8 exponent, 13 mantissa bits),
// FP32, and UE8M0 (unsigned power-of-two scales). Conversions round to nearest even, except
// UE8M0's, which round up to the next power of two as a scale must.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace hw::fp8 {

enum class Specials {
  kIeee,         // exponent all ones: Inf (mantissa 0) or NaN
  kFiniteOnly,   // OCP E4M3FN: no Inf; only exponent and mantissa all ones is NaN
  kExponentOnly  // UE8M0: no sign, no mantissa; all ones is NaN
};

struct FloatFormat {
  std::string name;
  int exponent_bits = 0;
  int mantissa_bits = 0;
  int bias = 0;
  Specials specials = Specials::kIeee;
  bool has_sign = true;

  int total_bits() const { return (has_sign ? 1 : 0) + exponent_bits + mantissa_bits; }
  double max_finite() const;
  double min_normal() const;
  double min_subnormal() const;  // min_normal for formats without a mantissa
};

const FloatFormat& e4m3();
const FloatFormat& e5m2();
const FloatFormat& e5m6();
const FloatFormat& bf16();
const FloatFormat& fp22();
const FloatFormat& fp32();
const FloatFormat& ue8m0();
// A float with this many exponent and mantissa bits, IEEE-like (for accumulator studies).
FloatFormat ieee_like(int exponent_bits, int mantissa_bits);

const FloatFormat& format_by_name(const std::string& name, const std::string& where = "");
std::vector<std::string> format_names();

enum class Overflow {
  kSaturate,     // clamp to the largest finite value (NVIDIA's hardware convert)
  kNonSaturate,  // Inf where the format has one, else NaN (the OCP reference)
};

// Round-to-nearest-even conversion of x to the format's code (in the low total_bits()).
std::uint32_t encode(const FloatFormat& f, double x, Overflow overflow = Overflow::kSaturate);
double decode(const FloatFormat& f, std::uint32_t code);
inline double round_to(const FloatFormat& f, double x, Overflow overflow = Overflow::kSaturate) {
  return decode(f, encode(f, x, overflow));
}

// x rounded toward zero to `mantissa_bits` (0 to 52) bits after the leading one, keeping its
// exponent (no range limits): the truncating adder of a limited-precision accumulator. Inline:
// the GEMM emulation calls it once per MMA.
double truncate_mantissa_slow(double x, int mantissa_bits);  // zero, subnormal and non-finite x
inline double truncate_mantissa(double x, int mantissa_bits) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t exponent = (bits >> 52) & 0x7FF;
  if (exponent == 0 || exponent == 0x7FF) return truncate_mantissa_slow(x, mantissa_bits);
  // Clearing the low bits of a normal sign-magnitude double truncates it toward zero.
  return std::bit_cast<double>(bits & ~((std::uint64_t{1} << (52 - mantissa_bits)) - 1));
}
// The same with round-to-nearest-even.
double round_mantissa(double x, int mantissa_bits);

}  // namespace hw::fp8
