#pragma once
// Core works in SI base units (FLOP, FLOP/s, s, bytes, bytes/s). These factors convert at the display and
// command-line boundary only; names that carry a non-SI unit say so (pricePerGpuHourUsd, tflops...).
#include <cstdint>

namespace mfu {

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kPeta = 1e15;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;

} // namespace mfu
