#pragma once
// Human-readable numbers for messages and text output: "21,111", "57.91 G", "1,223 TFLOPS".
#include <optional>
#include <string>
#include <string_view>

namespace mfu {

// Thousands separators, fixed decimals: formatNumber(1222.6, 0) == "1,223".
std::string formatNumber(double value, int decimals = 0);
// value / 1e9 with two decimals and " GFLOP": "57.91 GFLOP".
std::string formatGflop(double flop);
// FLOP/s as TFLOPS, the one rule of every surface (panels, command line, report, diagnosis messages): one decimal,
// two below 10 TFLOPS so that a small figure keeps three significant digits, with thousands separators:
// "1,222.6 TFLOPS", "989.0 TFLOPS", "4.25 TFLOPS". formatTflopsValue is the number alone, for a sentence that puts
// the unit elsewhere ("X TFLOPS per GPU / Y TFLOPS dense").
std::string formatTflops(double flopsPerSec);
std::string formatTflopsValue(double flopsPerSec);
// Fraction as percent, two decimals unless a place has less room (a heat-map cell, a sentence's round share):
// "54.34%". The one percent format of every surface (panels, command line, report, diagnosis messages), so that a
// figure reads the same wherever it is shown.
std::string formatPercent(double fraction, int decimals = 2);
// A parameter count with three significant figures and its suffix, as model cards write it: "11.8M", "8.03B", "1.03T".
std::string formatParameters(double count);
// Bytes as GiB with separators: formatGiB(80e9) == "74.5 GiB".
std::string formatGiB(double bytes, int decimals = 1);
// A duration in milliseconds, three decimals below 100 ms and one above: "7.125 ms", "115.6 ms", "1,838.0 ms".
std::string formatMilliseconds(double seconds);
// A duration in seconds with three decimals: "22.030 s".
std::string formatSeconds(double seconds);
// A count and its noun, singular for one: formatCount(1, "GPU") == "1 GPU", formatCount(1024, "GPU") == "1,024 GPUs".
std::string formatCount(double count, const std::string& noun);

// The first "inf", "-nan", "NaN" ... standing as a figure in `text` ("$inf", "NaN%", "inf s"), as formatNumber,
// QLocale, QString::number and printf write a non-finite double; nothing when there is none. Surfaces use it as the
// last guard before a figure leaves (the command line refuses the output, the report sets the figure aside).
std::optional<std::string> nonFiniteFigure(std::string_view text);

} // namespace mfu
