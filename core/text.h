#pragma once
// Small text helpers the readers and the preset lookups share: ASCII lower case for matching names and keys that
// are ASCII by definition (kernel names, preset ids, precision keys), a prefix test over a list, and a user's value
// quoted for an error message.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace mfu {

// ASCII letters lowered, every other byte kept (no locale: "É" and UTF-8 bytes pass through unchanged).
inline std::string asciiLowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

inline bool startsWithAny(std::string_view text, std::initializer_list<const char*> prefixes)
{
    for (const char* p : prefixes)
        if (text.starts_with(p))
            return true;
    return false;
}

// A value a user gave, quoted for an error message: whole up to 80 bytes; past that its first and last 36 bytes
// (never splitting a UTF-8 character) around an ellipsis, and its length: "'aaaa…aaaa' (100,000 characters)". A
// pasted file or a 100,000-character argument would otherwise become the message, and the advice after it scroll
// out of sight.
std::string quotedForMessage(std::string_view value);

// A list as a sentence says it: "a, b and c" (or, with conjunction "or", "a, b or c"); the item alone for one, empty
// for none.
std::string listInWords(const std::vector<std::string>& items, std::string_view conjunction = "and");

} // namespace mfu
