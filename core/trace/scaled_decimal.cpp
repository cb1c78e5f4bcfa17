// Decimal text to scaled int64 without a double in between: trace timestamps are microseconds with up to three
// decimals, and epoch nanoseconds (~1.7e18) need all 19 digits.
#include <charconv>
#include <cstdint>
#include <string_view>

#include "core/trace/json_scanner.h"

namespace mfu::trace {

bool scaledDecimal(std::string_view s, int scale, int64_t& out)
{
    size_t i = 0;
    const bool negative = i < s.size() && s[i] == '-';
    if (negative)
        ++i;
    // Up to 19 significant digits in an unsigned mantissa; further digits only move the decimal exponent.
    uint64_t mantissa = 0;
    int digits = 0;
    int exponent = scale;
    bool roundUp = false;
    bool dropped = false;
    auto take = [&](char d, bool fractional) {
        if (digits < 19) {
            if (mantissa != 0 || d != '0')
                ++digits;
            mantissa = mantissa * 10 + static_cast<uint64_t>(d - '0');
            if (fractional)
                --exponent;
        } else {
            if (!dropped)
                roundUp = d >= '5';
            dropped = true;
            if (!fractional)
                ++exponent;
        }
    };
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
        take(s[i], false);
    if (i < s.size() && s[i] == '.')
        for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
            take(s[i], true);
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        int e = 0;
        const size_t digitsAt = i + 1 < s.size() && s[i + 1] == '+' ? i + 2 : i + 1; // "1e" ends here: no s[i + 1]
        const auto [ptr, ec] = std::from_chars(s.data() + digitsAt, s.data() + s.size(), e);
        if (ec != std::errc() || ptr != s.data() + s.size())
            return false;
        if (e < -400 || (e > 400 && mantissa == 0)) {
            out = 0;
            return true;
        }
        if (e > 400)
            return false;
        exponent += e;
    }
    if (roundUp)
        ++mantissa;
    if (mantissa == 0) {
        out = 0;
        return true;
    }
    for (; exponent > 0; --exponent) {
        if (mantissa > UINT64_MAX / 10)
            return false;
        mantissa *= 10;
    }
    if (exponent < 0) {
        if (exponent < -19) {
            mantissa = 0;
        } else {
            uint64_t divisor = 1;
            for (; exponent < 0; ++exponent)
                divisor *= 10;
            mantissa = (mantissa + divisor / 2) / divisor;
        }
    }
    if (mantissa > static_cast<uint64_t>(INT64_MAX))
        return false;
    out = negative ? -static_cast<int64_t>(mantissa) : static_cast<int64_t>(mantissa);
    return true;
}

} // namespace mfu::trace
