#pragma once
// How far apart two figures are, as a share of the larger of the two: the one measure every "do these figures
// agree" check uses (a log's peak against a GPU's, a file's tokens per step against the scenario's, a reported
// throughput against the one its own figures imply).
#include <algorithm>
#include <cmath>
#include <limits>

namespace mfu {

// |a - b| / max(|a|, |b|); 0 when both are 0, infinite when either is not finite (nothing agrees with a NaN).
inline double relativeGap(double a, double b)
{
    if (!std::isfinite(a) || !std::isfinite(b))
        return std::numeric_limits<double>::infinity();
    const double larger = std::max(std::fabs(a), std::fabs(b));
    return larger > 0 ? std::fabs(a - b) / larger : 0.0;
}

// Whether a and b agree within `tolerance` of the larger of the two.
inline bool agreeWithin(double a, double b, double tolerance)
{
    return relativeGap(a, b) <= tolerance;
}

} // namespace mfu
