#include "core/trace/roofline.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/number_format.h"
#include "core/trace/gemm_precision.h"

namespace mfu::trace {

double Roofline::peakFlopsFor(const std::string& precision) const
{
    const std::string& key = precision.empty() ? mfuPrecision : precision;
    for (const auto& c : ceilings)
        if (c.precision == key)
            return c.peakFlops;
    return 0;
}

double Roofline::attainableFlops(double intensity, const std::string& precision) const
{
    const double peak = peakFlopsFor(precision);
    return peak > 0 && hbmBytesPerSecond > 0 ? std::min(peak, intensity * hbmBytesPerSecond) : peak;
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

std::string Roofline::abovePeakNote() const
{
    if (abovePeakProblems <= 0)
        return {};
    const bool one = abovePeakProblems == 1;
    std::string fastest = abovePeakFastest;
    if (fastest.size() > 120)
        fastest = fastest.substr(0, 117) + "...";
    return std::to_string(abovePeakProblems) + (one ? " operator problem ran" : " operator problems ran")
        + " faster than its precision's dense peak allows (the fastest: " + fastest + " at "
        + formatTflops(abovePeakFastestFlops) + ", where the peak is " + formatTflops(abovePeakFastestPeak)
        + "): " + (one ? "its" : "their") + " recorded shapes or the kernels found for " + (one ? "it" : "them")
        + " are not what ran, and " + (one ? "it is" : "they are") + " not on the roofline.";
}

namespace {

// A GPU may run a little above its rated clock, and a kernel's time is rounded to the microsecond in a trace.
constexpr double kAbovePeakMargin = 1.05;

void leaveOutAbovePeak(Roofline& r)
{
    std::vector<OpProblem> kept;
    for (auto& m : r.marks) {
        const double peak = r.peakFlopsFor(m.precision ? m.precision->key() : std::string());
        const double achieved = m.tflops() * 1e12;
        if (!(peak > 0) || achieved <= kAbovePeakMargin * peak) {
            kept.push_back(std::move(m));
            continue;
        }
        ++r.abovePeakProblems;
        if (achieved / peak > r.abovePeakFastestFlops / std::max(r.abovePeakFastestPeak, 1.0)) {
            r.abovePeakFastest = m.op + " " + m.shapes;
            r.abovePeakFastestFlops = achieved;
            r.abovePeakFastestPeak = peak;
        }
    }
    r.marks = std::move(kept);
}

} // namespace

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
    leaveOutAbovePeak(r);
    return r;
}

} // namespace mfu::trace
