#include "core/io/json_errors.h"

#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "core/errors.h"
#include "core/text.h"

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

nlohmann::json parseJsonDocument(std::string_view text, const std::string& source)
{
    using Event = nlohmann::json::parse_event_t;
    std::vector<std::set<std::string>> keys; // the keys of each object open at this point of the text
    std::optional<std::string> twice;
    const nlohmann::json::parser_callback_t noteKeys = [&](int, Event event, nlohmann::json& parsed) {
        if (event == Event::object_start)
            keys.emplace_back();
        else if (event == Event::object_end && !keys.empty())
            keys.pop_back();
        else if (event == Event::key && !keys.empty() && !twice && parsed.is_string()
            && !keys.back().insert(parsed.get_ref<const std::string&>()).second)
            twice = parsed.get<std::string>();
        return true;
    };
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text, noteKeys);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(source + ": " + jsonParseProblem(e, text.size()));
    } catch (const nlohmann::json::out_of_range&) { // a number beyond double range, e.g. 1e309
        throw InputError(source + ": " + kJsonNumberTooLarge);
    }
    if (twice)
        throw InputError(source + ": the key " + quotedForMessage(*twice)
            + " appears twice in one object: JSON names each key once, and which of its values was meant cannot be "
              "told");
    return document;
}

} // namespace mfu
