#include "core/number_format.h"

#include <cmath>
#include <cstdio>
#include <utility>

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

std::string formatTflopsValue(double flopsPerSec)
{
    return formatNumber(flopsPerSec / 1e12, std::fabs(flopsPerSec) < 10e12 ? 2 : 1);
}

std::string formatTflops(double flopsPerSec)
{
    return formatTflopsValue(flopsPerSec) + " TFLOPS";
}

std::string formatPercent(double fraction, int decimals)
{
    return formatNumber(fraction * 100.0, decimals) + "%";
}

std::string formatGiB(double bytes, int decimals)
{
    return formatNumber(bytes / (1024.0 * 1024.0 * 1024.0), decimals) + " GiB";
}

std::string formatMilliseconds(double seconds)
{
    const double ms = seconds * 1e3;
    return formatNumber(ms, std::fabs(ms) >= 100 ? 1 : 3) + " ms";
}

std::string formatSeconds(double seconds)
{
    return formatNumber(seconds, 3) + " s";
}

std::string formatCount(double count, const std::string& noun)
{
    return formatNumber(count, 0) + " " + noun + (std::llround(count) == 1 ? "" : "s");
}

std::string formatParameters(double count)
{
    static constexpr std::pair<double, const char*> kScales[]
        = { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" } };
    for (const auto& [scale, suffix] : kScales)
        if (std::fabs(count) >= scale) {
            const double v = count / scale;
            return formatNumber(v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2) + suffix;
        }
    return formatNumber(count, 0);
}

std::optional<std::string> nonFiniteFigure(std::string_view text)
{
    // How QLocale, QString::number, printf and core/number_format.h write a non-finite double, as a figure stands
    // in a line: after a space, '$', '(', '=' or ':' (or at the start) and before a space, '%', ',', ')' or the end.
    // A path (/data/inf/) or a kernel name (nan_to_num) has other neighbours.
    const auto opens
        = [](char c) { return c == ' ' || c == '$' || c == '(' || c == '=' || c == ':' || c == ',' || c == '\t'; };
    const auto closes
        = [](char c) { return c == ' ' || c == '%' || c == ',' || c == ')' || c == '\n' || c == '\t' || c == '\r'; };
    for (const std::string_view word : { "inf", "nan", "NaN", "Inf", "NAN", "INF" }) {
        for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
            size_t start = at;
            if (start > 0 && (text[start - 1] == '-' || text[start - 1] == '+'))
                --start;
            const size_t end = at + word.size();
            if ((start == 0 || opens(text[start - 1])) && (end == text.size() || closes(text[end])))
                return std::string(text.substr(start, end - start));
        }
    }
    return std::nullopt;
}

} // namespace mfu
