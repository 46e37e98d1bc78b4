#include "hw/fp8/float_format.hpp"

#include <cmath>
#include <limits>

#include "core/catalogue.hpp"

namespace hw::fp8 {

namespace {

// Largest biased exponent that encodes finite numbers.
int max_finite_exponent_field(const FloatFormat& f) {
  const int all_ones = (1 << f.exponent_bits) - 1;
  return f.specials == Specials::kFiniteOnly ? all_ones : all_ones - 1;
}

std::uint32_t sign_bit(const FloatFormat& f) { return f.has_sign ? 1u << (f.exponent_bits + f.mantissa_bits) : 0u; }

std::uint32_t nan_code(const FloatFormat& f, bool negative) {
  const std::uint32_t exp_all = ((1u << f.exponent_bits) - 1) << f.mantissa_bits;
  std::uint32_t code = exp_all;
  if (f.specials == Specials::kFiniteOnly)
    code |= (1u << f.mantissa_bits) - 1;  // S.1111.111
  else if (f.mantissa_bits > 0)
    code |= 1u << (f.mantissa_bits - 1);  // quiet NaN
  return code | (negative ? sign_bit(f) : 0u);
}

std::uint32_t inf_code(const FloatFormat& f, bool negative) {
  return (((1u << f.exponent_bits) - 1) << f.mantissa_bits) | (negative ? sign_bit(f) : 0u);
}

std::uint32_t max_code(const FloatFormat& f, bool negative) {
  std::uint32_t mantissa = (1u << f.mantissa_bits) - 1;
  if (f.specials == Specials::kFiniteOnly) mantissa -= 1;  // all ones is NaN
  const std::uint32_t code = (static_cast<std::uint32_t>(max_finite_exponent_field(f)) << f.mantissa_bits) | mantissa;
  return code | (negative ? sign_bit(f) : 0u);
}

std::uint32_t overflow_code(const FloatFormat& f, bool negative, Overflow overflow) {
  if (overflow == Overflow::kSaturate) return max_code(f, negative);
  return f.specials == Specials::kIeee ? inf_code(f, negative) : nan_code(f, negative);
}

}  // namespace

double FloatFormat::max_finite() const { return decode(*this, max_code(*this, false)); }
double FloatFormat::min_normal() const { return std::ldexp(1.0, 1 - bias); }
double FloatFormat::min_subnormal() const { return std::ldexp(1.0, 1 - bias - mantissa_bits); }

FloatFormat ieee_like(int exponent_bits, int mantissa_bits) {
  return {"e" + std::to_string(exponent_bits) + "m" + std::to_string(mantissa_bits),
          exponent_bits,
          mantissa_bits,
          (1 << (exponent_bits - 1)) - 1,
          Specials::kIeee,
          true};
}

// OCP 8-bit Floating Point Specification (OFP8) rev. 1.0 for E4M3 and E5M2; DeepSeek-V3 report
// §3.5.2 for E5M6; bfloat16 and binary32 per IEEE 754; FP22 as Hopper's FP8 accumulator.
const FloatFormat& e4m3() {
  static const FloatFormat f{"e4m3", 4, 3, 7, Specials::kFiniteOnly, true};
  return f;
}
const FloatFormat& e5m2() {
  static const FloatFormat f{"e5m2", 5, 2, 15, Specials::kIeee, true};
  return f;
}
const FloatFormat& e5m6() {
  static const FloatFormat f{"e5m6", 5, 6, 15, Specials::kIeee, true};
  return f;
}
const FloatFormat& bf16() {
  static const FloatFormat f{"bf16", 8, 7, 127, Specials::kIeee, true};
  return f;
}
const FloatFormat& fp22() {
  static const FloatFormat f{"fp22", 8, 13, 127, Specials::kIeee, true};
  return f;
}
const FloatFormat& fp32() {
  static const FloatFormat f{"fp32", 8, 23, 127, Specials::kIeee, true};
  return f;
}
const FloatFormat& ue8m0() {
  static const FloatFormat f{"ue8m0", 8, 0, 127, Specials::kExponentOnly, false};
  return f;
}

namespace {
const std::vector<FloatFormat>& format_catalogue() {
  static const std::vector<FloatFormat> all = {e4m3(), e5m2(), e5m6(), bf16(), fp22(), fp32(), ue8m0()};
  return all;
}
}  // namespace

std::vector<std::string> format_names() { return core::names_of(format_catalogue()); }
const FloatFormat& format_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(format_catalogue(), name, "format", where);
}

std::uint32_t encode(const FloatFormat& f, double x, Overflow overflow) {
  const bool negative = std::signbit(x) && f.has_sign;
  if (std::isnan(x)) return nan_code(f, negative);
  if (!f.has_sign && x < 0) return nan_code(f, false);  // UE8M0 has no negative numbers
  if (f.specials == Specials::kExponentOnly) {
    // Powers of two only, rounded up: a scale must never shrink the range it covers.
    if (x == 0 || std::isinf(x))
      return std::isinf(x) && overflow == Overflow::kSaturate ? max_code(f, false) : nan_code(f, false);
    int e = std::ilogb(x);
    if (std::ldexp(x, -e) > 1.0) ++e;
    const int field = e + f.bias;
    if (field < 0) return 0;
    if (field > max_finite_exponent_field(f))
      return overflow == Overflow::kSaturate ? max_code(f, false) : nan_code(f, false);
    return static_cast<std::uint32_t>(field);
  }
  const double a = std::fabs(x);
  if (std::isinf(a)) return overflow_code(f, negative, overflow);
  if (a == 0) return negative ? sign_bit(f) : 0u;
  const int emin = 1 - f.bias;
  const int e = std::max(std::ilogb(a), emin);
  const double quantum = std::ldexp(1.0, e - f.mantissa_bits);
  const double q = std::nearbyint(a / quantum);  // exact division by a power of two; ties to even
  const double value = q * quantum;
  if (value > f.max_finite()) return overflow_code(f, negative, overflow);
  std::uint32_t code;
  if (value < f.min_normal()) {
    code = static_cast<std::uint32_t>(value / f.min_subnormal());  // subnormal (or zero)
  } else {
    const int ev = std::ilogb(value);
    const auto mantissa = static_cast<std::uint32_t>(std::ldexp(value, f.mantissa_bits - ev)) - (1u << f.mantissa_bits);
    code = (static_cast<std::uint32_t>(ev + f.bias) << f.mantissa_bits) | mantissa;
  }
  return code | (negative ? sign_bit(f) : 0u);
}

double decode(const FloatFormat& f, std::uint32_t code) {
  const std::uint32_t mantissa_mask = (1u << f.mantissa_bits) - 1;
  const std::uint32_t exp_mask = (1u << f.exponent_bits) - 1;
  const bool negative = f.has_sign && (code & sign_bit(f));
  const int exp_field = static_cast<int>((code >> f.mantissa_bits) & exp_mask);
  const std::uint32_t mantissa = code & mantissa_mask;
  const double sign = negative ? -1.0 : 1.0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (f.specials == Specials::kExponentOnly)
    return exp_field == static_cast<int>(exp_mask) ? nan : std::ldexp(1.0, exp_field - f.bias);
  if (exp_field == static_cast<int>(exp_mask)) {
    if (f.specials == Specials::kIeee) return mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : nan;
    if (mantissa == mantissa_mask) return nan;
  }
  if (exp_field == 0) return sign * std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  return sign *
         std::ldexp(static_cast<double>(mantissa | (1u << f.mantissa_bits)), exp_field - f.bias - f.mantissa_bits);
}

double truncate_mantissa_slow(double x, int mantissa_bits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::ilogb(x);
  return std::ldexp(std::trunc(std::ldexp(x, mantissa_bits - e)), e - mantissa_bits);
}

double round_mantissa(double x, int mantissa_bits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::ilogb(x);
  return std::ldexp(std::nearbyint(std::ldexp(x, mantissa_bits - e)), e - mantissa_bits);
}

}  // namespace hw::fp8
