#include "core/trace/json_scanner.h"

#include <charconv>
#include <cstring>

#include "core/errors.h"

namespace mfu::trace {

namespace {
constexpr size_t kBufferSize = 1 << 20;

inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
inline bool isNumberChar(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool validNumber(std::string_view s)
{
    size_t i = 0;
    auto digits = [&] {
        const size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i;
        return i - from;
    };
    if (i < s.size() && s[i] == '-')
        ++i;
    const size_t intStart = i;
    const size_t intDigits = digits();
    if (intDigits == 0 || (intDigits > 1 && s[intStart] == '0'))
        return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (digits() == 0)
            return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            ++i;
        if (digits() == 0)
            return false;
    }
    return i == s.size();
}
} // namespace

JsonScanner::JsonScanner(ByteSource& source)
    : m_source(source)
    , m_buf(kBufferSize)
{
    m_p = m_end = m_buf.data();
}

void JsonScanner::fail(const std::string& what) const
{
    // Failing where the input ran out is a cut-off file more often than a malformed one: said here, once, for every
    // message that meets the end (a NUL byte inside the data reads as 0 too, but the input has not run out there).
    const bool atEndOfInput = m_exhausted && m_p >= m_end;
    throw InputError(m_source.name() + ": byte " + std::to_string(offset())
        + (m_source.compressed() ? " (after decompression)" : "") + ": " + what
        + (atEndOfInput ? "; the file ends there, so it is probably truncated (an interrupted copy, or a profiler "
                          "that did not finish writing)"
                        : ""));
}

bool JsonScanner::refill()
{
    m_base += static_cast<uint64_t>(m_end - m_buf.data());
    const size_t n = m_source.read(m_buf.data(), m_buf.size());
    m_p = m_buf.data();
    m_end = m_p + n;
    m_exhausted = n == 0;
    return n > 0;
}

int JsonScanner::nextByte()
{
    if (m_p == m_end && !refill())
        return -1;
    return static_cast<unsigned char>(*m_p++);
}

char JsonScanner::peekSlow()
{
    for (;;) {
        while (m_p < m_end && isSpace(*m_p))
            ++m_p;
        if (m_p < m_end)
            return *m_p;
        if (!refill())
            return 0;
    }
}

void JsonScanner::expect(char c)
{
    const char got = peek();
    if (got != c)
        fail(got == 0 ? std::string("unexpected end of input, expected '") + c + "'"
                      : std::string("expected '") + c + "', found '" + got + "'");
    ++m_p;
}

void JsonScanner::beginObject()
{
    if (peek() != '{')
        fail(atEnd() ? "unexpected end of input, expected an object" : "expected an object");
    ++m_p;
    if (++m_depth > kMaxDepth)
        fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    m_first[m_depth] = true;
}

void JsonScanner::beginArray()
{
    if (peek() != '[')
        fail(atEnd() ? "unexpected end of input, expected an array" : "expected an array");
    ++m_p;
    if (++m_depth > kMaxDepth)
        fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    m_first[m_depth] = true;
}

bool JsonScanner::containerNext(char close, bool& first)
{
    const char c = peek();
    if (c == close) {
        ++m_p;
        --m_depth;
        return false;
    }
    if (!first) {
        if (c != ',')
            fail(
                c == 0 ? "unexpected end of input" : std::string("expected ',' or '") + close + "', found '" + c + "'");
        ++m_p;
        if (peek() == close)
            fail("trailing comma");
    }
    first = false;
    return true;
}

bool JsonScanner::nextMember()
{
    if (!containerNext('}', m_first[m_depth]))
        return false;
    if (peek() != '"')
        fail(atEnd() ? "unexpected end of input" : "expected a quoted key");
    m_keyView = string();
    // Common case: the ':' follows in the buffer, so the view stays valid. Otherwise copy before refilling.
    const char* q = m_p;
    while (q < m_end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
        ++q;
    if (q < m_end && *q == ':' && m_keyView.data() != m_scratch.data()) {
        m_p = q + 1;
        return true;
    }
    m_key.assign(m_keyView);
    m_keyView = m_key;
    expect(':');
    return true;
}

bool JsonScanner::nextElement()
{
    return containerNext(']', m_first[m_depth]);
}

std::string_view JsonScanner::string()
{
    return readString(true);
}

// A kept string may grow to kMaxStringBytes; a skipped one is validated and forgotten as it goes.
void JsonScanner::limitScratch(bool keep)
{
    if (m_scratch.size() <= (keep ? kMaxStringBytes : kBufferSize))
        return;
    if (keep)
        fail("a string longer than " + std::to_string(kMaxStringBytes >> 20) + " MiB");
    m_scratch.clear();
}

std::string_view JsonScanner::readString(bool keep)
{
    if (peek() != '"')
        fail(atEnd() ? "unexpected end of input, expected a string" : "expected a string");
    ++m_p;
    const char* start = m_p;
    bool scratch = false;
    for (;;) {
        // Fast path: plain ASCII inside the buffer, eight bytes at a time while none is special, with a local
        // cursor (the member would be stored back at every step).
        const char* p = m_p;
        const char* end = m_end;
        while (end - p >= 8) {
            uint64_t v;
            std::memcpy(&v, p, 8);
            constexpr uint64_t ones = 0x0101010101010101ULL;
            constexpr uint64_t highs = 0x8080808080808080ULL;
            const uint64_t quote = v ^ (ones * '"');
            const uint64_t backslash = v ^ (ones * '\\');
            const uint64_t special
                = ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | ((v - ones * 0x20) & ~v) | v;
            if (special & highs)
                break;
            p += 8;
        }
        while (p < end) {
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            ++p;
        }
        m_p = p;
        if (m_p == m_end) {
            if (!scratch) {
                m_scratch.clear();
                scratch = true;
            }
            m_scratch.append(start, m_p);
            limitScratch(keep);
            if (!refill())
                fail("unexpected end of input inside a string");
            start = m_p;
            continue;
        }
        const auto c = static_cast<unsigned char>(*m_p);
        if (c == '"') {
            std::string_view result;
            if (scratch) {
                m_scratch.append(start, m_p);
                result = m_scratch;
            } else {
                result = std::string_view(start, static_cast<size_t>(m_p - start));
            }
            ++m_p;
            return result;
        }
        if (!scratch) {
            m_scratch.clear();
            scratch = true;
        }
        m_scratch.append(start, m_p);
        ++m_p;
        if (c == '\\')
            readEscape();
        else if (c < 0x20)
            fail("control character inside a string (must be escaped)");
        else
            readUtf8(c);
        limitScratch(keep);
        start = m_p;
    }
}

void JsonScanner::appendCodePoint(uint32_t cp)
{
    if (cp < 0x80) {
        m_scratch += static_cast<char>(cp);
    } else if (cp < 0x800) {
        m_scratch += static_cast<char>(0xC0 | (cp >> 6));
        m_scratch += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        m_scratch += static_cast<char>(0xE0 | (cp >> 12));
        m_scratch += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        m_scratch += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        m_scratch += static_cast<char>(0xF0 | (cp >> 18));
        m_scratch += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        m_scratch += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        m_scratch += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

void JsonScanner::readEscape()
{
    const int e = nextByte();
    switch (e) {
    case '"':
        m_scratch += '"';
        return;
    case '\\':
        m_scratch += '\\';
        return;
    case '/':
        m_scratch += '/';
        return;
    case 'b':
        m_scratch += '\b';
        return;
    case 'f':
        m_scratch += '\f';
        return;
    case 'n':
        m_scratch += '\n';
        return;
    case 'r':
        m_scratch += '\r';
        return;
    case 't':
        m_scratch += '\t';
        return;
    case 'u':
        break;
    case -1:
        fail("unexpected end of input inside a string");
    default:
        fail("invalid escape sequence in string");
    }
    auto hex4 = [this] {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = nextByte();
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<uint32_t>(h - 'A' + 10);
            else
                fail("invalid \\u escape in string");
        }
        return v;
    };
    uint32_t cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF && m_p + 1 < m_end && m_p[0] == '\\' && m_p[1] == 'u') {
        m_p += 2;
        const uint32_t low = hex4();
        if (low >= 0xDC00 && low <= 0xDFFF) {
            appendCodePoint(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00));
            return;
        }
        appendCodePoint(0xFFFD); // documented repair: a lone surrogate becomes U+FFFD
        cp = low;
    }
    appendCodePoint(cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp);
}

void JsonScanner::readUtf8(unsigned char lead)
{
    int extra = 0;
    uint32_t cp = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        extra = 1;
        cp = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        extra = 2;
        cp = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        extra = 3;
        cp = lead & 0x07;
    } else {
        --m_p; // point the error at the offending byte
        fail("invalid UTF-8 byte in string");
    }
    m_scratch += static_cast<char>(lead);
    for (int i = 0; i < extra; ++i) {
        const int b = nextByte();
        if (b < 0 || (b & 0xC0) != 0x80)
            fail("invalid UTF-8 sequence in string");
        cp = (cp << 6) | static_cast<uint32_t>(b & 0x3F);
        m_scratch += static_cast<char>(b);
    }
    const bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        fail("invalid UTF-8 sequence in string");
}

std::string_view JsonScanner::number()
{
    const char first = peek();
    if (first != '-' && (first < '0' || first > '9'))
        fail(first == 0 ? "unexpected end of input, expected a number" : "expected a number");
    // Fast path: the whole number and the byte after it are in the buffer; the grammar is checked in one pass with
    // a local cursor (a member would be reloaded at every byte).
    const char* p = m_p;
    const char* end = m_end;
    auto digits = [&] {
        const char* from = p;
        while (p < end && static_cast<unsigned char>(*p - '0') <= 9)
            ++p;
        return p - from;
    };
    if (*p == '-')
        ++p;
    const char* intStart = p;
    const auto intDigits = digits();
    bool ok = intDigits > 0 && !(intDigits > 1 && *intStart == '0');
    if (ok && p < end && *p == '.') {
        ++p;
        ok = digits() > 0;
    }
    if (ok && p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-'))
            ++p;
        ok = digits() > 0;
    }
    if (ok && p < end && !isNumberChar(*p)) {
        const std::string_view text(m_p, static_cast<size_t>(p - m_p));
        m_p = p;
        return text;
    }
    return numberSlow();
}

// The number straddles a buffer boundary, or is malformed: collect its characters, then validate.
std::string_view JsonScanner::numberSlow()
{
    const char* start = m_p;
    m_scratch.clear();
    for (;;) {
        while (m_p < m_end && isNumberChar(*m_p))
            ++m_p;
        m_scratch.append(start, m_p);
        if (m_scratch.size() > kMaxNumberChars)
            fail("a number longer than " + std::to_string(kMaxNumberChars) + " characters");
        if (m_p < m_end || !refill())
            break;
        start = m_p;
    }
    const std::string_view text = m_scratch;
    if (!validNumber(text))
        fail("malformed number '" + std::string(text.substr(0, 40)) + "'");
    return text;
}

void JsonScanner::literal()
{
    const char c = peek();
    const char* word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : nullptr;
    if (!word)
        fail(c == 0 ? "unexpected end of input, expected a value" : std::string("unexpected character '") + c + "'");
    for (const char* w = word; *w; ++w)
        if (nextByte() != *w)
            fail(std::string("invalid literal, expected '") + word + "'");
}

// Recursion is bounded: beginObject/beginArray refuse nesting deeper than kMaxDepth.
void JsonScanner::skipValue()
{
    const char c = peek();
    if (c == '{') {
        beginObject();
        while (nextMember())
            skipValue();
    } else if (c == '[') {
        beginArray();
        while (nextElement())
            skipValue();
    } else if (c == '"') {
        readString(false);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        number();
    } else {
        literal();
    }
}

} // namespace mfu::trace
