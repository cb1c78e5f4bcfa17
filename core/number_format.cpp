#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace mfu {

std::string formatNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf");
    // Sized by snprintf itself: |value| can have up to 309 integer digits (DBL_MAX), more than any fixed buffer.
    const double magnitude = std::fabs(value);
    const int length = std::snprintf(nullptr, 0, "%.*f", decimals, magnitude);
    std::string digits(static_cast<size_t>(length > 0 ? length : 0), '\0');
    std::snprintf(digits.data(), digits.size() + 1, "%.*f", decimals, magnitude);
    const size_t dot = digits.find('.');
    std::string integer = digits.substr(0, dot);
    const std::string fraction = dot == std::string::npos ? "" : digits.substr(dot);
    for (int i = int(integer.size()) - 3; i > 0; i -= 3)
        integer.insert(size_t(i), ",");
    const bool negative = value < 0 && std::stod(digits) != 0.0;
    return (negative ? "-" : "") + integer + fraction;
}

std::string formatGflop(double flop)
{
    return formatNumber(flop / 1e9, 2) + " GFLOP";
}

std::string formatTflops(double flopsPerSec)
{
    return formatNumber(flopsPerSec / 1e12, 1) + " TFLOPS";
}

std::string formatPercent(double fraction)
{
    return formatNumber(fraction * 100.0, 2) + "%";
}

} // namespace mfu
