#pragma once
// A pull tokenizer for JSON over a ByteSource: the trace readers walk the document and keep only the fields they
// need, skipping the rest without building a tree. Validates as it goes (grammar, UTF-8, control characters,
// nesting depth) and reports errors as InputError "<file>: byte <offset>: <what>".
//
// Views returned by string()/number() stay valid only until the next call on the scanner.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/byte_source.h"

namespace mfu::trace {

class JsonScanner {
public:
    static constexpr int kMaxDepth = 256;
    // The longest string value or key the scanner hands out, and the longest number: a trace's names and arguments
    // are kilobytes, and a string it keeps must fit in memory (a 3 MB .json.gz can inflate to a 3 GiB string).
    // Strings that are skipped (skipValue) are validated without being kept, whatever their length.
    static constexpr size_t kMaxStringBytes = size_t(16) << 20;
    static constexpr size_t kMaxNumberChars = 4096;

    explicit JsonScanner(ByteSource& source);

    // Next non-whitespace character without consuming it; 0 at the end of input.
    char peek()
    {
        if (m_p<m_end&& static_cast<unsigned char>(*m_p)> ' ')
            return *m_p;
        return peekSlow();
    }
    bool atEnd() { return peek() == 0; }
    void expect(char c);

    // Containers: call begin, then next() before each member/element until it returns false.
    void beginObject();
    bool nextMember(); // reads the key (see key()) and the ':'; false at '}'
    std::string_view key() const { return m_keyView; } // valid until the next call
    void beginArray();
    bool nextElement(); // false at ']'

    std::string_view string(); // reads a string value
    std::string_view number(); // reads a number, validated against the JSON grammar, as its text
    void literal(); // true, false or null
    void skipValue();

    uint64_t offset() const { return m_base + static_cast<uint64_t>(m_p - m_buf.data()); }
    [[noreturn]] void fail(const std::string& what) const;
    const std::string& sourceName() const { return m_source.name(); }

private:
    char peekSlow();
    std::string_view readString(bool keep);
    void limitScratch(bool keep);
    std::string_view numberSlow();
    bool refill();
    int nextByte(); // -1 at end
    void readEscape();
    void readUtf8(unsigned char lead);
    void appendCodePoint(uint32_t cp);
    bool containerNext(char close, bool& first);

    ByteSource& m_source;
    std::vector<char> m_buf;
    const char* m_p = nullptr;
    const char* m_end = nullptr;
    uint64_t m_base = 0;
    bool m_exhausted = false; // the source returned no more bytes
    std::string m_scratch;
    std::string m_key; // the key, when it could not stay a view into the buffer
    std::string_view m_keyView;
    bool m_first[kMaxDepth + 2] = {}; // per nesting level: no member read yet
    int m_depth = 0;
};

// Decimal text (JSON number grammar) times 10^scale, rounded to the nearest integer; false when it does not fit
// int64. scale 3 turns microseconds into nanoseconds exactly, without a round trip through double.
bool scaledDecimal(std::string_view text, int scale, int64_t& out);

} // namespace mfu::trace
