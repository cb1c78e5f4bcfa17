#include "core/logs/log_text.h"

#include <algorithm>
#include <charconv>

#include "core/number_parse.h"

namespace mfu::trace::logtext {

const std::string& withoutAnsi(const std::string& line, std::string& out)
{
    if (line.find('\x1b') == std::string::npos)
        return line;
    out.clear();
    size_t i = 0;
    while (i < line.size()) {
        const size_t esc = std::min(line.find('\x1b', i), line.size());
        out.append(line, i, esc - i); // the text up to the next escape, in one piece
        i = esc;
        if (i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z')))
                ++i;
            ++i; // the final letter
        } else if (i < line.size()) {
            out += line[i++]; // a lone ESC stays
        }
    }
    return out;
}

std::optional<double> number(std::string_view text)
{
    if (!text.empty() && text.back() == '%')
        text.remove_suffix(1);
    if (text.size() > 64 || text.find(' ') != std::string_view::npos)
        return std::nullopt; // no number a log prints is this long; a captured field holds no spaces
    // With the quantity suffixes every other reader takes (k, M, B/G, T): nanotron prints "853K tokens/s".
    return parseQuantity(text, NumberText::Lenient);
}

std::optional<double> numberAt(std::string_view line, size_t begin, size_t end)
{
    const auto isDigit = [&line](size_t i) { return i < line.size() && line[i] >= '0' && line[i] <= '9'; };
    // A capture the pattern cut short ("2" of "2.5165824E+07" under [\d,]+) takes the rest of the figure with it,
    // so it is read whole or, when the whole is no number, not at all.
    // A '.' or ',' with no digit after it ends a sentence or a list ("loss 10.84, time"), not the figure.
    while (isDigit(end) || (end < line.size() && (line[end] == '.' || line[end] == ',') && isDigit(end + 1)))
        ++end;
    const std::string_view captured = line.substr(begin, end - begin);
    if (end < line.size() && (line[end] == 'e' || line[end] == 'E')
        && captured.find_first_of("eE") == std::string_view::npos) {
        size_t i = end + 1;
        if (i < line.size() && (line[i] == '+' || line[i] == '-'))
            ++i;
        if (isDigit(i)) {
            while (isDigit(i))
                ++i;
            end = i;
        }
    }
    return number(line.substr(begin, end - begin));
}

std::optional<int64_t> stepNumber(std::string_view digits)
{
    int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() ? std::optional(value) : std::nullopt;
}

bool searchNear(const std::string& line, const std::string& needle, const std::regex& regex, std::smatch& m)
{
    const size_t at = line.find(needle);
    if (at == std::string::npos)
        return false;
    const size_t from = at > kLookBehind ? at - kLookBehind : 0;
    const size_t to = std::min(line.size(), at + needle.size() + kLookAhead);
    const bool cut = to < line.size();
    auto flags = from > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
    if (cut) // more text follows the window: `$` and a final `\b` must not match at its end
        flags |= std::regex_constants::match_not_eol | std::regex_constants::match_not_eow;
    const auto end = line.begin() + static_cast<std::ptrdiff_t>(to);
    if (!std::regex_search(line.begin() + static_cast<std::ptrdiff_t>(from), end, m, regex, flags))
        return false;
    if (cut)
        for (size_t g = 1; g < m.size(); ++g)
            if (m[g].matched && m[g].second == end)
                return false; // the capture may go on past the window: its value is not known
    return true;
}

std::shared_ptr<const std::regex> re(const char* pattern)
{
    return std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex::optimize);
}

} // namespace mfu::trace::logtext
