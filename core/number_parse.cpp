#include "core/number_parse.h"

#include <charconv>
#include <cmath>
#include <string>

namespace mfu {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

// The separator between digit groups at text[i], and its length in bytes; 0 when there is none. U+00A0 (C2 A0) and
// U+202F (E2 80 AF) are the group separators of French and other locales.
size_t separatorAt(std::string_view text, size_t i, NumberText style)
{
    if (i >= text.size())
        return 0;
    const char c = text[i];
    if (c == ',' || c == '_')
        return 1;
    if (style == NumberText::Strict)
        return 0;
    if (c == ' ')
        return 1;
    if (text.substr(i, 2) == "\xC2\xA0")
        return 2;
    if (text.substr(i, 3) == "\xE2\x80\xAF")
        return 3;
    return 0;
}

size_t digitRun(std::string_view text, size_t i)
{
    size_t n = 0;
    while (i + n < text.size() && isDigit(text[i + n]))
        ++n;
    return n;
}

std::string_view trimmedBlanks(std::string_view text)
{
    while (!text.empty() && isBlank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);
    return text;
}

// The integer part at text[i]: a plain run of digits, or groups of three after a first group of one to three,
// all separated by the same separator. Appends the digits to `digits`; returns the bytes read, or nullopt when the
// grouping is malformed ("2,50", "1,0000", "1,000_000") or, in Strict text, a lone ',' could be a decimal comma.
std::optional<size_t> integerPart(std::string_view text, size_t i, NumberText style, std::string& digits)
{
    const size_t first = digitRun(text, i);
    digits.append(text.substr(i, first));
    size_t at = i + first;
    const size_t separatorLength = separatorAt(text, at, style);
    if (separatorLength == 0)
        return at - i;
    const std::string_view separator = text.substr(at, separatorLength);
    // A space ends the number when no digit follows it ("128 k", "1.294 B").
    const bool blank = separator != "," && separator != "_";
    if (blank && digitRun(text, at + separatorLength) == 0)
        return at - i;
    if (first == 0 || first > 3)
        return std::nullopt;
    int groups = 0;
    while (text.substr(at, separatorLength) == separator) {
        const size_t run = digitRun(text, at + separatorLength);
        if (run == 0 && blank)
            break;
        if (run != 3)
            return std::nullopt;
        digits.append(text.substr(at + separatorLength, 3));
        at += separatorLength + 3;
        ++groups;
    }
    const size_t other = separatorAt(text, at, style);
    if (other != 0 && !(blank && text.substr(at, other) == separator) && digitRun(text, at + other) != 0)
        return std::nullopt; // a second kind of separator ("1,000_000")
    const bool fractionFollows = at < text.size() && text[at] == '.';
    if (style == NumberText::Strict && separator == "," && groups == 1 && !fractionFollows)
        return std::nullopt; // "2,500": 2500, or 2.5 written with a decimal comma?
    return at - i;
}

// The number at the start of `text`, separators removed, and where it ends; nullopt when it is not one.
// `pastRange`, when given, is set when the text is a number written well whose value lies past a double's range
// (1e400, or 2e308 with a suffix): the one refusal the syntax hint would not explain.
std::optional<double> leadingNumber(std::string_view text, NumberText style, size_t& end, bool* pastRange)
{
    std::string plain;
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        if (text[i] == '-')
            plain += '-'; // from_chars takes no '+'
        ++i;
    }
    const auto integer = integerPart(text, i, style, plain);
    if (!integer)
        return std::nullopt;
    i += *integer;
    size_t mantissaDigits = *integer;
    if (i < text.size() && text[i] == '.') {
        const size_t fraction = digitRun(text, i + 1);
        plain.append(text.substr(i, fraction + 1));
        i += fraction + 1;
        mantissaDigits += fraction;
    }
    if (mantissaDigits == 0)
        return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        const size_t sign = i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-') ? 1 : 0;
        const size_t exponent = digitRun(text, i + 1 + sign);
        if (exponent == 0)
            return std::nullopt; // "1e", "1e+": an exponent without digits
        plain += 'e';
        plain.append(text.substr(i + 1, sign + exponent));
        i += 1 + sign + exponent;
    }
    double value = 0;
    const auto [stop, error] = std::from_chars(plain.data(), plain.data() + plain.size(), value);
    if (error != std::errc() || stop != plain.data() + plain.size() || !std::isfinite(value)) {
        // Out of range (1e400; 1e-400 is out of range too, but below, not past) or, defensively, anything the
        // grammar above let through.
        const size_t e = plain.find('e');
        if (pastRange && error == std::errc::result_out_of_range && e != std::string::npos && e + 1 < plain.size()
            && plain[e + 1] != '-')
            *pastRange = true;
        return std::nullopt;
    }
    end = i;
    return value;
}

double suffixScale(char c)
{
    switch (c) {
    case 'k':
    case 'K':
        return 1e3;
    case 'm':
    case 'M':
        return 1e6;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
        return 1e9;
    case 't':
    case 'T':
        return 1e12;
    default:
        return 0;
    }
}

// The number and, when `suffixes` gives a scale for it, one trailing suffix letter.
template <typename Scale>
std::optional<double> readNumber(std::string_view text, NumberText style, Scale suffixes, bool* pastRange = nullptr)
{
    if (style == NumberText::Lenient)
        text = trimmedBlanks(text);
    size_t end = 0;
    const auto value = leadingNumber(text, style, end, pastRange);
    if (!value)
        return std::nullopt;
    std::string_view rest = text.substr(end);
    if (rest.empty())
        return value;
    if (style == NumberText::Lenient)
        rest = trimmedBlanks(rest); // "1.294 B"
    const double scale = rest.size() == 1 ? suffixes(rest.front()) : 0.0;
    if (scale == 0)
        return std::nullopt;
    const double scaled = *value * scale;
    if (std::isfinite(scaled))
        return scaled;
    if (pastRange)
        *pastRange = true;
    return std::nullopt;
}

} // namespace

std::optional<double> parseDecimal(std::string_view text, NumberText style)
{
    return readNumber(text, style, [](char) { return 0.0; });
}

std::optional<double> parseQuantity(std::string_view text, NumberText style)
{
    return readNumber(text, style, suffixScale);
}

std::optional<double> parseSequenceLength(std::string_view text, NumberText style)
{
    return readNumber(text, style, [](char c) {
        return c == 'k' || c == 'K' ? 1024.0 : c == 'm' || c == 'M' ? 1048576.0 : suffixScale(c);
    });
}

std::string numberRefusalReason(std::string_view text, NumberText style)
{
    bool pastRange = false;
    readNumber(text, style, suffixScale, &pastRange);
    return pastRange ? "past the largest number a double holds, about 1.8e308" : kNumberSyntaxHint;
}

} // namespace mfu
