#pragma once
// The hash ECMP routing spreads flows with: splitmix64's finaliser, fixed so that routes are the
// same on every run and platform.
#include <cstdint>

namespace net {

inline std::uint64_t flow_hash(std::uint64_t key) {
  key += 0x9E3779B97F4A7C15ull;
  key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ull;
  key = (key ^ (key >> 27)) * 0x94D049BB133111EBull;
  return key ^ (key >> 31);
}

}  // namespace net
