#include "hw/fp8/logfmt.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/input_error.hpp"

namespace hw::fp8 {

namespace {

// The largest clamp between the smallest and largest magnitude of a tile, in log2.
constexpr double kMaxLogRange = 32;

double level(const LogFmtTile& t, std::uint32_t magnitude_code) {
  return std::exp2(static_cast<double>(magnitude_code - 1) * t.step + t.log_min);
}

}  // namespace

LogFmtTile logfmt_encode(const double* values, int count, int bits) {
  if (bits < 3 || bits > 16) throw core::InputError("LogFMT bits", std::to_string(bits) + " is not from 3 to 16");
  LogFmtTile t;
  const std::uint32_t top_code = (1u << (bits - 1)) - 1;  // magnitude codes 1..top_code
  double amax = 0, amin = INFINITY;
  for (int i = 0; i < count; ++i) {
    if (!std::isfinite(values[i]))
      throw core::InputError("input data",
                             "element " + std::to_string(i) + " is not finite; LogFMT needs finite values");
    const double a = std::fabs(values[i]);
    if (a == 0) continue;
    amax = std::max(amax, a);
    amin = std::min(amin, a);
  }
  t.codes.assign(static_cast<std::size_t>(count), 0);
  if (amax == 0) return t;  // all zeros
  t.log_max = std::log2(amax);
  t.log_min = std::max(std::log2(amin), t.log_max - kMaxLogRange);
  t.step = (t.log_max - t.log_min) / static_cast<double>(top_code - 1);
  for (int i = 0; i < count; ++i) {
    const double a = std::fabs(values[i]);
    if (a == 0) continue;
    std::uint32_t code;
    if (t.step == 0) {
      code = 1;
    } else {
      // The two levels around a (in log space), then the nearer one in linear space; below the
      // first level, zero competes too.
      const double position = (std::log2(a) - t.log_min) / t.step;
      const auto below = static_cast<std::uint32_t>(
          static_cast<int>(std::clamp(std::floor(position), -1.0, double(top_code - 1))) + 1);
      const std::uint32_t above = std::min(below + 1, top_code);
      const double low = below == 0 ? 0.0 : level(t, below);
      code = (a - low <= level(t, above) - a) ? below : above;
    }
    const std::uint32_t sign = std::signbit(values[i]) ? 1u << (bits - 1) : 0u;
    t.codes[static_cast<std::size_t>(i)] = code == 0 ? 0u : (sign | code);
  }
  return t;
}

std::vector<double> logfmt_decode(const LogFmtTile& t, int bits) {
  std::vector<double> out(t.codes.size());
  const std::uint32_t magnitude_mask = (1u << (bits - 1)) - 1;
  for (std::size_t i = 0; i < t.codes.size(); ++i) {
    const std::uint32_t magnitude = t.codes[i] & magnitude_mask;
    if (magnitude == 0) continue;
    const double v = level(t, magnitude);
    out[i] = (t.codes[i] >> (bits - 1)) & 1u ? -v : v;
  }
  return out;
}

std::vector<double> logfmt_round_trip(const std::vector<double>& values, int bits) {
  std::vector<double> out;
  out.reserve(values.size());
  for (std::size_t start = 0; start < values.size(); start += kLogFmtTile) {
    const int count = static_cast<int>(std::min<std::size_t>(kLogFmtTile, values.size() - start));
    const auto decoded = logfmt_decode(logfmt_encode(values.data() + start, count, bits), bits);
    out.insert(out.end(), decoded.begin(), decoded.end());
  }
  return out;
}

}  // namespace hw::fp8
