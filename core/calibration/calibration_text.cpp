#include "core/calibration/calibration_text.h"

#include "core/number_format.h"

namespace mfu {

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

std::string calibrationSummaryText(const TraceCalibration& c)
{
    return std::to_string(c.steps) + " step(s) of " + std::to_string(c.ranks) + " rank(s)"
        + (c.gpuName.empty() ? "" : " on " + c.gpuName) + ": replay " + formatMilliseconds(c.replayStepSeconds)
        + ", measured " + formatMilliseconds(c.measuredStepSeconds) + " a step (uncalibrated "
        + formatMilliseconds(c.uncalibratedStepSeconds) + ")";
}

} // namespace mfu
