#pragma once
// Why a document is not JSON, in the words every reader uses: where the parser stopped, what it found, and, when it
// stopped at the end of the text, that the file is empty or probably cut off (what a truncated download or an
// interrupted write looks like), rather than the parser's bare "unexpected end of input".
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace mfu {

// "not valid JSON at byte 301: syntax error while parsing object key - ...; the file ends there, so it is probably
// truncated (...)", or "not valid JSON: the file is empty (0 bytes)". `textBytes` is the size of the text that was
// parsed.
std::string jsonParseProblem(const nlohmann::json::parse_error& error, size_t textBytes);

// A number beyond a double's range (1e309), which nlohmann reports as out_of_range.
inline constexpr const char* kJsonNumberTooLarge = "not valid JSON: a number is too large";

// A JSON document as the product's readers take it: InputError "<source>: <why>" when it is not JSON
// (jsonParseProblem, kJsonNumberTooLarge) or when an object names a key twice. nlohmann keeps the last of two
// values silently ({"gpu": "h100-sxm", "gpu": "a100-sxm-80gb"} was diagnosed on the A100, a config with
// num_hidden_layers twice read as the second), and which one the writer meant cannot be told.
nlohmann::json parseJsonDocument(std::string_view text, const std::string& source);

} // namespace mfu
