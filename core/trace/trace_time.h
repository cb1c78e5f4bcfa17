#pragma once
// Every time a trace reader keeps lies within +-kTraceTimeLimitNs: then the sum or difference of any two (a span, a
// start plus the file's time origin) fits int64 and cannot wrap. 4e18 ns is 126 years either side of the file's
// zero: epoch nanoseconds (1.7e18 in 2024) fit, and a figure past it is a corrupt file, not a trace. Readers refuse
// a time past the limit, or drop the one event whose end would pass it with a warning; they never wrap.
#include <cstdint>
#include <optional>

namespace mfu::trace {

inline constexpr int64_t kTraceTimeLimitNs = 4'000'000'000'000'000'000;

constexpr bool isTraceTime(int64_t ns)
{
    return ns >= -kTraceTimeLimitNs && ns <= kTraceTimeLimitNs;
}

// start + duration, or nothing when the sum overflows int64 or leaves the trace time range.
constexpr std::optional<int64_t> traceEndNs(int64_t startNs, int64_t durationNs)
{
    int64_t end = 0;
    if (__builtin_add_overflow(startNs, durationNs, &end) || !isTraceTime(startNs) || !isTraceTime(end))
        return std::nullopt;
    return end;
}

// A trace's nanoseconds as seconds, the unit every figure the product prints is in.
constexpr double nsToSeconds(int64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

} // namespace mfu::trace
