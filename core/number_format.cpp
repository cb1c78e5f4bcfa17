#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace mfu {

std::string formatNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf");
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, std::fabs(value));
    std::string digits(buffer);
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

std::string formatPercent(double fraction, int decimals)
{
    return formatNumber(fraction * 100.0, decimals) + "%";
}

} // namespace mfu
