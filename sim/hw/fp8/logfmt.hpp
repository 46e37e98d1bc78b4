#pragma once
// LogFMT-nBit (ISCA'25 §3.2.1): per 1x128 tile, the log2 of |x| is quantised uniformly between
// the tile's min and max (min clamped to max - 32, i.e. log2 of 2^32), with a sign bit and
// n - 1 magnitude bits; code 0 is zero; code k >= 1 decodes to 2^((k - 1) step + min), step =
// (max - min) / (2^(n-1) - 2); encoding picks the nearest level in linear space.
#include <cstdint>
#include <vector>

namespace hw::fp8 {

struct LogFmtTile {
  double log_min = 0;  // log2 of the smallest magnitude kept
  double log_max = 0;
  double step = 0;
  std::vector<std::uint32_t> codes;  // sign in bit n-1, magnitude code below
};

inline constexpr int kLogFmtTile = 128;

// `values` of one tile (up to 128); bits from 3 to 16. Throws core::InputError for NaN or Inf.
LogFmtTile logfmt_encode(const double* values, int count, int bits);
std::vector<double> logfmt_decode(const LogFmtTile& tile, int bits);

// Encode and decode a whole vector tile by tile.
std::vector<double> logfmt_round_trip(const std::vector<double>& values, int bits);

}  // namespace hw::fp8
