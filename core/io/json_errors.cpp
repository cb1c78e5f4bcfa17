#include "core/io/json_errors.h"

#include <string_view>

namespace mfu {

std::string jsonParseProblem(const nlohmann::json::parse_error& error, size_t textBytes)
{
    if (textBytes == 0)
        return "not valid JSON: the file is empty (0 bytes)";
    // nlohmann prefixes its messages with "[json.exception.parse_error.101] parse error at line 1, column 2: ";
    // the byte says where, so only what it found is kept.
    std::string_view what = error.what();
    if (const size_t tag = what.find("] "); what.starts_with("[json.exception.") && tag != std::string_view::npos)
        what.remove_prefix(tag + 2);
    if (const size_t at = what.find(": "); what.starts_with("parse error") && at != std::string_view::npos)
        what.remove_prefix(at + 2);
    std::string out = "not valid JSON at byte " + std::to_string(error.byte) + ": " + std::string(what);
    // The parser reads one past the last byte when the text ran out: a cut-off file more often than a malformed one.
    if (error.byte > textBytes)
        out += "; the file ends there, so it is probably truncated (an interrupted download, copy or write)";
    return out;
}

} // namespace mfu
