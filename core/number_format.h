#pragma once
// Human-readable numbers for messages and text output: "21,111", "57.91 G", "1,223 TFLOPS".
#include <string>

namespace mfu {

// Thousands separators, fixed decimals: formatNumber(1222.6, 0) == "1,223".
std::string formatNumber(double value, int decimals = 0);
// value / 1e9 with two decimals and " GFLOP": "57.91 GFLOP".
std::string formatGflop(double flop);
// FLOP/s as TFLOPS with one decimal and separators: "1,222.6 TFLOPS".
std::string formatTflops(double flopsPerSec);
// Fraction as percent with two decimals: "54.34%". The one percent format of every surface (panels, command line,
// report, diagnosis messages), so that a figure reads the same wherever it is shown.
std::string formatPercent(double fraction);

} // namespace mfu
