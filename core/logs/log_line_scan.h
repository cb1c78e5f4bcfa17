#pragma once
// Hand-written matchers for the fixed step lines of torchtitan, Megatron-LM and nanoGPT (core/logs/training_log.h).
// Each finds what std::regex_search with the ECMAScript pattern quoted beside it finds (the first match in the
// line), some 50 times faster: std::regex was most of the time a log took to read. The patterns are literal text,
// greedy character runs and optional whitespace, so a left-to-right scan that tries each occurrence of the literal
// in turn is exact; word boundaries (\b) are ASCII, as std::regex's are in the C locale, and `.*` stops at '\r'.
#include <optional>
#include <string_view>

namespace mfu::trace::scan {

enum class Chars {
    None, // no value: the key alone
    Digits, // \d
    Decimal, // [\d.]
    Grouped, // [\d,.]
    Signed, // [-\d.]
    Exponent, // [-\d.eE+]
};

// `key` (after one of `lead`'s characters when lead is set, with \b before the whole when wordStart), then \s* when
// skipSpace, then a non-empty run of `chars` (none for Chars::None) (after an optional '-' when optionalMinus), then
// `suffix`.
struct FieldPattern {
    std::string_view key;
    bool wordStart = false;
    std::string_view lead = {};
    bool skipSpace = false;
    Chars chars = Chars::Decimal;
    bool optionalMinus = false;
    std::string_view suffix = {};
};

// The captured run of the first match starting at or after `from`, or nothing.
std::optional<std::string_view> findField(std::string_view line, const FieldPattern& p, size_t from = 0);

// The step number's digits of a step line, or nothing when the line is not one:
//   torchtitan  \bstep:\s*(\d+)\b.*\b[tw]ps:
//   megatron    \biteration\s+(\d+)\s*/\s*\d+.*elapsed time per iteration
//   nanogpt     \biter (\d+): loss [-\d.]+, time [\d.]+ms, mfu
std::optional<std::string_view> torchtitanStep(std::string_view line);
std::optional<std::string_view> megatronStep(std::string_view line);
std::optional<std::string_view> nanogptStep(std::string_view line);

} // namespace mfu::trace::scan
