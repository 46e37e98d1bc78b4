#pragma once
// Unit constants. Network and memory sizes are SI (1 GB = 1e9 B, 1 GB/s = 1e9 B/s), as the
// DeepSeek papers use them; every quantity carries its unit in its name (bytes, seconds, flops).
namespace core {

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

inline constexpr double kKB = 1e3;    // bytes
inline constexpr double kGB = 1e9;    // bytes
inline constexpr double kGBps = 1e9;  // bytes per second

inline constexpr double kMicrosecond = 1e-6;  // seconds
inline constexpr double kMillisecond = 1e-3;  // seconds

// 400 Gb/s line rate expressed in bytes per second.
inline constexpr double gbit_per_s_to_Bps(double gbit_per_s) { return gbit_per_s * 1e9 / 8.0; }

}  // namespace core
