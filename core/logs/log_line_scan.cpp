#include "core/logs/log_line_scan.h"

namespace mfu::trace::scan {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isWord(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool inClass(char c, Chars chars)
{
    switch (chars) {
    case Chars::None:
        return false;
    case Chars::Digits:
        return isDigit(c);
    case Chars::Decimal:
        return isDigit(c) || c == '.';
    case Chars::Grouped:
        return isDigit(c) || c == '.' || c == ',';
    case Chars::Signed:
        return isDigit(c) || c == '.' || c == '-';
    case Chars::Exponent:
        return isDigit(c) || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+';
    }
    return false;
}

// A position in a line and the pattern pieces, each consuming what it matched or failing.
struct Cursor {
    std::string_view s;
    size_t i;

    bool literal(std::string_view text)
    {
        if (s.substr(i, text.size()) != text)
            return false;
        i += text.size();
        return true;
    }
    size_t spaces()
    {
        const size_t from = i;
        while (i < s.size() && isSpace(s[i]))
            ++i;
        return i - from;
    }
    std::string_view run(Chars chars)
    {
        const size_t from = i;
        while (i < s.size() && inClass(s[i], chars))
            ++i;
        return s.substr(from, i - from);
    }
};

bool boundaryBefore(std::string_view line, size_t at)
{
    return at == 0 || !isWord(line[at - 1]); // the match starts with a word character
}

// The line up to its first '\r' or '\n' from `from`: where a `.*` can reach.
std::string_view dotReach(std::string_view line, size_t from)
{
    return line.substr(0, std::min(line.find_first_of("\r\n", from), line.size()));
}

// Each start of `key` at or after `from` with \b before it, until match(cursor after key) gives a result.
template <typename Match> auto eachWordStart(std::string_view line, std::string_view key, Match match)
{
    for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
        if (!boundaryBefore(line, at))
            continue;
        Cursor c { line, at + key.size() };
        if (auto found = match(c))
            return found;
    }
    return decltype(match(std::declval<Cursor&>())) {};
}

} // namespace

std::optional<std::string_view> findField(std::string_view line, const FieldPattern& p, size_t from)
{
    for (size_t at = line.find(p.key, from); at != std::string_view::npos; at = line.find(p.key, at + 1)) {
        size_t start = at;
        if (!p.lead.empty()) {
            if (at == from || p.lead.find(line[at - 1]) == std::string_view::npos)
                continue;
            start = at - 1;
        }
        if (p.wordStart && !boundaryBefore(line, start))
            continue;
        Cursor c { line, at + p.key.size() };
        if (p.skipSpace)
            c.spaces();
        const size_t valueStart = c.i;
        if (p.optionalMinus)
            c.literal("-");
        if ((c.run(p.chars).empty() && p.chars != Chars::None) || !c.literal(p.suffix))
            continue;
        return line.substr(valueStart, c.i - p.suffix.size() - valueStart);
    }
    return std::nullopt;
}

std::optional<std::string_view> torchtitanStep(std::string_view line)
{
    return eachWordStart(line, "step:", [line](Cursor& c) -> std::optional<std::string_view> {
        c.spaces();
        const std::string_view digits = c.run(Chars::Digits);
        if (digits.empty() || (c.i < line.size() && isWord(line[c.i])))
            return std::nullopt;
        const FieldPattern throughput { "ps:", true, "tw", false, Chars::None };
        return findField(dotReach(line, c.i), throughput, c.i) ? std::optional(digits) : std::nullopt;
    });
}

std::optional<std::string_view> megatronStep(std::string_view line)
{
    return eachWordStart(line, "iteration", [line](Cursor& c) -> std::optional<std::string_view> {
        if (c.spaces() == 0)
            return std::nullopt;
        const std::string_view digits = c.run(Chars::Digits);
        c.spaces();
        if (digits.empty() || !c.literal("/"))
            return std::nullopt;
        c.spaces();
        if (c.run(Chars::Digits).empty())
            return std::nullopt;
        return dotReach(line, c.i).find("elapsed time per iteration", c.i) != std::string_view::npos
            ? std::optional(digits)
            : std::nullopt;
    });
}

std::optional<std::string_view> nanogptStep(std::string_view line)
{
    return eachWordStart(line, "iter ", [](Cursor& c) -> std::optional<std::string_view> {
        const std::string_view digits = c.run(Chars::Digits);
        if (digits.empty() || !c.literal(": loss ") || c.run(Chars::Signed).empty() || !c.literal(", time ")
            || c.run(Chars::Decimal).empty() || !c.literal("ms, mfu"))
            return std::nullopt;
        return digits;
    });
}

} // namespace mfu::trace::scan
