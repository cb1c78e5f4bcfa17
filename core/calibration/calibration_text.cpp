#include "core/calibration/calibration_text.h"

#include <cmath>

#include "core/number_format.h"

namespace mfu {

namespace {

std::string upperAscii(std::string text)
{
    for (char& ch : text)
        if (ch >= 'a' && ch <= 'z')
            ch = static_cast<char>(ch - 'a' + 'A');
    return text;
}

} // namespace

std::string_view calibratedTermLabel(CalibratedTerm t)
{
    switch (t) {
    case CalibratedTerm::Matmul:
        return "Matmuls";
    case CalibratedTerm::Attention:
        return "Attention";
    case CalibratedTerm::MemoryBound:
        return "Memory-bound";
    case CalibratedTerm::Communication:
        return "Exposed communication";
    case CalibratedTerm::Overhead:
        return "Overhead";
    }
    return "?";
}

std::string calibratedFiguresText(const CalibratedPrediction& p)
{
    return "MFU " + formatPercent(p.calibrated.mfu) + " (likely " + formatPercent(p.mfuLow) + "-"
        + formatPercent(p.mfuHigh) + "), step " + formatSeconds(p.calibrated.stepTimeSeconds) + " (uncalibrated "
        + formatPercent(p.uncalibrated.mfu) + ", " + formatSeconds(p.uncalibrated.stepTimeSeconds) + ")";
}

std::string calibratedBasisText(const CalibratedPrediction& p)
{
    return "measured " + formatPercent(p.measuredShare, 0) + ", interpolated " + formatPercent(p.interpolatedShare, 0)
        + ", extrapolated " + formatPercent(p.extrapolatedShare, 0) + " of the step";
}

std::vector<std::string> calibratedTermLines(const CalibratedPrediction& p)
{
    std::vector<std::string> lines;
    for (const CalibratedTermTime& t : p.terms)
        if (t.seconds > 0)
            lines.push_back(std::string(calibratedTermKey(t.term)) + " " + formatSeconds(t.seconds) + " "
                + std::string(termBasisKey(t.basis)) + (t.why.empty() ? "" : ": " + t.why));
    return lines;
}

std::vector<std::string> gemmShapeLines(const TraceCalibration& c, size_t most)
{
    std::vector<std::string> lines;
    for (size_t i = 0; i < c.gemmShapes.size() && i < most; ++i) {
        const GemmShapeBin& b = c.gemmShapes[i];
        const double peak = peakOf(b, c.traced.cluster.hardware);
        lines.push_back(formatNumber(b.m) + " x " + formatNumber(b.n) + " x " + formatNumber(b.k) + " "
            + upperAscii(b.precision) + ": "
            + formatNumber(b.callsPerStep, std::floor(b.callsPerStep) == b.callsPerStep ? 0 : 1) + " a step, "
            + formatMilliseconds(b.secondsPerStep) + ", " + formatTflops(b.flopsPerSecond())
            + (peak > 0 ? " (" + formatPercent(b.flopsPerSecond() / peak, 0) + " of the dense peak)" : ""));
    }
    return lines;
}

std::vector<std::string> attentionShapeLines(const TraceCalibration& c, size_t most)
{
    std::vector<std::string> lines;
    for (size_t i = 0; i < c.attentionShapes.size() && i < most; ++i) {
        const AttentionShapeBin& b = c.attentionShapes[i];
        const std::string seq
            = b.seqQ == b.seqK ? formatNumber(b.seqK) : formatNumber(b.seqQ) + " x " + formatNumber(b.seqK);
        const std::string dim = b.headDimQk == b.headDimV ? formatNumber(b.headDimQk)
                                                          : formatNumber(b.headDimQk) + "/" + formatNumber(b.headDimV);
        lines.push_back("sequence " + seq + ", head dim " + dim + ", " + formatNumber(b.batch) + " x "
            + formatNumber(b.heads) + " heads, " + (b.causal ? "causal " : "") + (b.backward ? "backward" : "forward")
            + ": " + formatNumber(b.callsPerStep, std::floor(b.callsPerStep) == b.callsPerStep ? 0 : 1) + " a step, "
            + formatMilliseconds(b.secondsPerStep) + ", " + formatTflops(b.flopsPerSecond()));
    }
    return lines;
}

std::string calibrationSummaryText(const TraceCalibration& c)
{
    return std::to_string(c.steps) + " step(s) of " + std::to_string(c.ranks) + " rank(s)"
        + (c.gpuName.empty() ? "" : " on " + c.gpuName) + ": replay " + formatMilliseconds(c.replayStepSeconds)
        + ", measured " + formatMilliseconds(c.measuredStepSeconds) + " a step (uncalibrated "
        + formatMilliseconds(c.uncalibratedStepSeconds) + ")";
}

} // namespace mfu
