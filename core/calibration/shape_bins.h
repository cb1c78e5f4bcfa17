#pragma once
// The last steps of keeping a trace's kernels by shape, the same for GEMMs and attention calls: the ranks' sums
// averaged over the ranks, bins under 0.1% of their family's time dropped as noise, the longest first, at most `most`.
#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

namespace mfu {

inline constexpr double kMinShapeBinShare = 0.001;

// A traced shape's speed no GPU kernel runs at: under 1 GFLOP/s, or more than 5% above the dense peak its kind runs
// against (datasheet peaks are rounded; 0: the GPU states none, unchecked). Such a shape is a FLOP count that went
// wrong, or an edited file: calibration drops it, a calibration file holding one is refused.
inline bool impossibleShapeSpeed(double flopsPerSecond, double peak)
{
    return !(flopsPerSecond >= 1e9) || (peak > 0 && flopsPerSecond > 1.05 * peak);
}

// bins: summed over `ranks` ranks (each already per step); tieLess orders bins of equal time, so that the order does
// not depend on the map's.
template <typename Key, typename Bin, typename TieLess>
std::vector<Bin> finishedShapeBins(const std::map<Key, Bin>& bins, size_t ranks, size_t most, TieLess tieLess)
{
    const double n = static_cast<double>(std::max<size_t>(1, ranks));
    std::vector<Bin> out;
    double total = 0;
    for (const auto& [key, summed] : bins) {
        Bin b = summed;
        b.callsPerStep /= n;
        b.secondsPerStep /= n;
        b.flopsPerStep /= n;
        total += b.secondsPerStep;
        out.push_back(b);
    }
    std::erase_if(out, [total](const Bin& b) { return b.secondsPerStep < kMinShapeBinShare * total; });
    std::sort(out.begin(), out.end(), [&](const Bin& a, const Bin& b) {
        return a.secondsPerStep != b.secondsPerStep ? a.secondsPerStep > b.secondsPerStep : tieLess(a, b);
    });
    if (out.size() > most)
        out.resize(most);
    return out;
}

} // namespace mfu
