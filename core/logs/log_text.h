#pragma once
// Text helpers shared by the training-log reader's parts (core/logs/training_log.cpp, log_formats.cpp,
// log_facts.cpp): ANSI stripping, lenient number reading and needle-guided regex search. Internal to core/trace.
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace mfu::trace::logtext {

// Removes ANSI colour sequences (ESC [ ... letter), which torchtitan writes around every field. Returns the line
// itself when it has none, else `out` (reused from line to line, so no allocation per line).
const std::string& withoutAnsi(const std::string& line, std::string& out);

// The whole text as a number (core/number_parse.h's parseQuantity, as a program prints it: "3,456", "1.9185E+04",
// a leading '+', "853K"), one trailing '%' ignored; nothing when any of it is not part of the number, its digits are
// grouped wrongly ("1,9185") or it is out of range.
std::optional<double> number(std::string_view text);

// The number captured at [begin, end) of `line`, with the rest of the figure that directly follows it (digits, '.',
// ',' and an exponent): the built-in patterns capture [\d.]+ or [\d,]+, and "1.9185E+04" ms must not be read as
// 1.9185, nor "2.5E+07" tokens as 2.
std::optional<double> numberAt(std::string_view line, size_t begin, size_t end);

// A step number from a matched run of digits; one beyond int64 (a corrupt line) means the line is not a step.
std::optional<int64_t> stepNumber(std::string_view digits);

// Runs a regex only from a little before its literal needle: std::regex is slow, and most of a log line is other
// fields. Every built-in match starts at most kLookBehind characters before its needle's first occurrence.
constexpr size_t kLookBehind = 32;

// ... and only up to kLookAhead characters after the needle (a user's pattern, whose needle is empty: the first
// kLookAhead characters of the line). std::regex recurses once per character it matches, and some 30,000
// characters exhaust an 8 MiB stack (a crash, found with a 100,000-character "GPUs: 111..." line); a window this
// size needs about a megabyte at most, and every field a logger prints fits in it. A capture that reaches the end
// of a window cut short may go on beyond it, so such a match counts as none rather than a truncated number.
constexpr size_t kLookAhead = 4096;

bool searchNear(const std::string& line, const std::string& needle, const std::regex& regex, std::smatch& m);

// The longest regular expression a user may give (--log-pattern, a kernel rule): compiling one recurses on its
// length too (100,000 characters crash).
constexpr size_t kMaxPatternLength = 2000;

// A compiled, optimised ECMAScript regex, shared by the rule tables.
std::shared_ptr<const std::regex> re(const char* pattern);

} // namespace mfu::trace::logtext
