#pragma once
// Numbers as people type them, for the command line and the window alike: "8192", "2.5e9", "21,111", "8 192",
// "1_000", and the suffixes k/K = 1e3, m/M = 1e6, b/B/g/G = 1e9, t/T = 1e12 ("32k", "1.5M", "8B"). The decimal
// point is '.', and ',' '_' and spaces (also U+00A0 and U+202F) group digits.
#include <optional>
#include <string_view>

namespace mfu {

// nullopt for anything else (empty, letters, a second suffix, infinities, NaN).
std::optional<double> parseQuantity(std::string_view text);

// A sequence length as people say it: a "32k" or "128K" context is 32,768 or 131,072 tokens and a "1M" context
// 1,048,576 (Llama 3's 8k is 8,192, its 128k 131,072), so k and M are powers of two here; everything else as
// parseQuantity ("8192", "8,192", "2.5e4").
std::optional<double> parseSequenceLength(std::string_view text);

} // namespace mfu
