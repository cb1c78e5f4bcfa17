#include "core/number_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace mfu {

std::optional<double> parseQuantity(std::string_view text)
{
    std::string t;
    t.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ',' || c == '_' || c == ' ' || c == '\t')
            continue;
        // U+00A0 (C2 A0) and U+202F (E2 80 AF): the group separators of French and other locales.
        if (c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0') {
            ++i;
            continue;
        }
        if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' && text[i + 2] == '\xAF') {
            i += 2;
            continue;
        }
        t += c;
    }
    if (t.empty())
        return std::nullopt;
    double scale = 1.0;
    switch (t.back()) {
    case 'k':
    case 'K':
        scale = 1e3;
        break;
    case 'm':
    case 'M':
        scale = 1e6;
        break;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
        scale = 1e9;
        break;
    case 't':
    case 'T':
        scale = 1e12;
        break;
    default:
        break;
    }
    if (scale != 1.0)
        t.pop_back();
    if (t.empty())
        return std::nullopt;
    size_t start = t.front() == '+' ? 1 : 0; // from_chars takes no '+'
    double value = 0;
    const char* first = t.data() + start;
    const char* last = t.data() + t.size();
    const auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
    if (error != std::errc() || end != last)
        return std::nullopt;
    value *= scale;
    if (!std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<double> parseSequenceLength(std::string_view text)
{
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    const char suffix = text.back();
    const double scale = suffix == 'k' || suffix == 'K' ? 1024.0 : suffix == 'm' || suffix == 'M' ? 1048576.0 : 1.0;
    if (scale == 1.0)
        return parseQuantity(text);
    text.remove_suffix(1);
    const auto v = parseQuantity(text);
    // "32kk" or "1Mk": one suffix only (parseQuantity would read the inner one).
    if (!v || text.empty() || std::isalpha(static_cast<unsigned char>(text.back())))
        return std::nullopt;
    return *v * scale;
}

} // namespace mfu
