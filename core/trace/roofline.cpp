#include "core/trace/roofline.h"

#include <algorithm>

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

Roofline rooflineOf(const OpFlops& flops, const HardwareSpec* hardware)
{
    Roofline r;
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
