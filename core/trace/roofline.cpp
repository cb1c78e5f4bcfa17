#include "core/trace/roofline.h"

#include <algorithm>
#include <cstdio>

#include "core/trace/gemm_precision.h"

namespace mfu::trace {

double Roofline::attainableFlops(double intensity, const std::string& precision) const
{
    const std::string& key = precision.empty() ? mfuPrecision : precision;
    for (const auto& c : ceilings)
        if (c.precision == key)
            return hbmBytesPerSecond > 0 ? std::min(c.peakFlops, intensity * hbmBytesPerSecond) : c.peakFlops;
    return 0;
}

std::string Roofline::leftOutNote() const
{
    if (leftOutKernels <= 0)
        return {};
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", 100 * leftOutShare);
    std::string longest = leftOutLongest;
    if (longest.size() > 80)
        longest = longest.substr(0, 77) + "...";
    return std::to_string(leftOutKernels) + (leftOutKernels == 1 ? " computation kernel (" : " computation kernels (")
        + share + " of their time) " + (leftOutKernels == 1 ? "has" : "have")
        + " no FLOPs or bytes in the trace (no operator with recorded shapes launched "
        + (leftOutKernels == 1 ? "it" : "them") + ") and " + (leftOutKernels == 1 ? "is" : "are")
        + " not on the roofline; the longest: " + longest + ".";
}

Roofline rooflineOf(const OpFlops& flops, const HardwareSpec* hardware)
{
    Roofline r;
    r.leftOutKernels = flops.kernelsWithoutWork;
    r.leftOutNs = flops.nsWithoutWork;
    r.leftOutShare = flops.computationNs > 0
        ? static_cast<double>(flops.nsWithoutWork) / static_cast<double>(flops.computationNs)
        : 0;
    r.leftOutLongest = flops.longestWithoutWork;
    for (const auto& p : flops.problems)
        if (p.flops > 0 && p.bytes > 0 && p.ns > 0)
            r.marks.push_back(p);
    if (!hardware)
        return r;
    r.gpu = hardware->id;
    r.hbmBytesPerSecond = hardware->hbmBandwidthBytesPerSec;
    std::vector<GemmPrecision> precisions;
    // The MFU peak's ceiling is always drawn; elementwise marks (no precision) sit under it.
    precisions.push_back({ hardware->mfuPeakFormat(), false, false });
    r.mfuPrecision = precisions.front().key();
    for (const auto& m : r.marks)
        if (m.precision && std::none_of(precisions.begin(), precisions.end(), [&m](const GemmPrecision& p) {
                return p.key() == m.precision->key();
            }))
            precisions.push_back(*m.precision);
    for (const auto& p : precisions) {
        const PeakAt peak = densePeakAt(*hardware, p.format);
        if (!(peak.flopsPerSecond > 0))
            continue;
        RooflineCeiling c;
        c.precision = p.key();
        c.label = p.label();
        c.peakFlops = peak.flopsPerSecond;
        c.fallback = peak.fallback;
        c.ridgeIntensity = r.hbmBytesPerSecond > 0 ? c.peakFlops / r.hbmBytesPerSecond : 0;
        r.ceilings.push_back(c);
    }
    std::sort(r.ceilings.begin(), r.ceilings.end(),
        [](const RooflineCeiling& a, const RooflineCeiling& b) { return a.peakFlops > b.peakFlops; });
    return r;
}

} // namespace mfu::trace
