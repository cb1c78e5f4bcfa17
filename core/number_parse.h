#pragma once
// The one number reader of the command line, scenario and preset text, training logs, the Python module and the
// window. A number is an optional sign, digits with an optional '.' fraction, an optional exponent ("2.5e9",
// "1.9185E+04"), and for quantities one suffix k/K = 1e3, m/M = 1e6, b/B/g/G = 1e9, t/T = 1e12 ("32k", "1.5M",
// "8B"). The decimal point is always '.'. Digits may be grouped in threes, the first group of one to three digits
// ("1,000,000", "1_000"); a ',' that could be a decimal comma ("2,50" or, on the command line, "2,500") is refused
// rather than guessed. A value past the range of a double (1e400) is refused, never read as infinity.
#include <optional>
#include <string>
#include <string_view>

namespace mfu {

enum class NumberText {
    // A flag, a file or a Python argument: nothing around the number, and ',' groups only where it cannot be a
    // decimal comma: two or more of them ("1,000,000") or a '.' fraction after them ("2,500.5"). '_' groups freely.
    Strict,
    // Text a person typed in the window or a program printed (a training log, Python's f"{n:,}"): also a single ','
    // group ("21,111", "tps: 3,456"), spaces around the number, and spaces, U+00A0 or U+202F between groups
    // ("8 192").
    Lenient,
};

// nullopt for anything else (empty, letters, a second suffix, badly grouped digits, infinities, NaN, overflow).
std::optional<double> parseQuantity(std::string_view text, NumberText style = NumberText::Strict);

// A plain number, no suffix: "1.9185E+04", "4,194,304".
std::optional<double> parseDecimal(std::string_view text, NumberText style = NumberText::Strict);

// A sequence length as people say it: a "32k" or "128K" context is 32,768 or 131,072 tokens and a "1M" context
// 1,048,576 (Llama 3's 8k is 8,192, its 128k 131,072), so k and M are powers of two here; everything else as
// parseQuantity ("8192", "8,192", "2.5e4").
std::optional<double> parseSequenceLength(std::string_view text, NumberText style = NumberText::Strict);

// Why a text was refused, for messages: the rules above in one line.
inline constexpr const char* kNumberSyntaxHint
    = "the decimal point is '.', digits group in threes (1,000,000), and E notation is fine (2.5e9)";

// Why parseQuantity refused `text`, for messages: "past the largest number a double holds, about 1.8e308" for a
// number written well beyond a double's range (1e400), else kNumberSyntaxHint.
std::string numberRefusalReason(std::string_view text, NumberText style = NumberText::Strict);

} // namespace mfu
