#pragma once
// How well each 8-to-16-bit format carries activation-like data: per-1x128-tile scaled E4M3 and
// E5M2 (as DeepSeek's kernels send them), LogFMT-n, and plain BF16, on seeded heavy-tailed data.
#include <cstdint>
#include <string>
#include <vector>

namespace hw::fp8 {

struct FormatError {
  std::string format;
  double relative_rms = 0;   // ||x' - x|| / ||x||
  double mean_relative = 0;  // mean |x' - x| / |x| over non-zero x
};

// Student-t (3 degrees of freedom) samples: heavy tails with occasional large outliers.
std::vector<double> activation_like(std::size_t count, std::uint64_t seed);

// `format`: e4m3, e5m2, bf16, or logfmt-N (N from 3 to 16).
FormatError format_error(const std::vector<double>& values, const std::string& format);
std::vector<std::string> comparable_formats();

}  // namespace hw::fp8
