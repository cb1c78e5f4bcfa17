// The report's calibration section: the scenario predicted with the terms a trace measured, beside the cost model's
// own prediction (the section before it), with what the calibration rests on.
#include "core/calibration/calibration_text.h"
#include "core/number_format.h"
#include "core/report/report_figures.h"
#include "core/text.h"

namespace mfu {

namespace {

constexpr size_t kShapesShown = 5;

// "measured 161.0 ms, predicted 230.0 ms a step: factor 0.700", or why the term kept the model's own time.
std::string fitText(const TermFit& f)
{
    const std::string times = "measured " + formatMilliseconds(f.measuredSeconds) + ", predicted "
        + formatMilliseconds(f.predictedSeconds) + " a step";
    return f.fitted ? times + ": factor " + formatNumber(f.factor, 3) : times + ": not fitted (the model's own)";
}

} // namespace

ReportSection calibrationSection(const CalibratedPrediction& p, const ReportCalibration& source)
{
    const TraceCalibration& c = source.calibration;
    ReportSection out { "Calibrated to a trace", {} };
    out.rows.push_back({ "Calibration", source.source, calibrationSummaryText(c) });
    out.rows.push_back({ "Calibrated", calibratedFiguresText(p),
        "beside the cost model's prediction above, never instead of it; the band is the trace's step-to-step spread "
        "and replay error on what it measured, the published runs' band on what it extrapolates" });
    out.rows.push_back({ "Rests on", calibratedBasisText(p), "" });
    // The traced run first (what the factors are), then this scenario's terms (how far each is carried).
    // A term neither side has (communication on one GPU) says nothing.
    for (const TermFit& f : c.fits)
        if (f.measuredSeconds > 0 || f.predictedSeconds > 0)
            out.rows.push_back({ "Traced " + asciiLowered(calibratedTermLabel(f.term)), fitText(f), f.evidence });
    for (const CalibratedTermTime& t : p.terms)
        if (t.seconds > 0)
            out.rows.push_back({ std::string(calibratedTermLabel(t.term)) + " in this scenario",
                formatMilliseconds(t.seconds) + ", " + std::string(termBasisKey(t.basis)), t.why });
    // The shapes the matmul and attention factors are carried by, the longest as `calibrate` prints them.
    const auto shapeRows = [&](const char* label, const std::vector<std::string>& lines, size_t all) {
        for (size_t i = 0; i < lines.size(); ++i)
            out.rows.push_back({ i == 0 ? label : "", lines[i],
                i == 0 ? "the longest " + std::to_string(lines.size()) + " of " + std::to_string(all)
                        + " traced shapes (all in the calibration file)"
                       : "" });
    };
    shapeRows("Traced GEMM shapes", gemmShapeLines(c, kShapesShown), c.gemmShapes.size());
    shapeRows("Traced attention", attentionShapeLines(c, kShapesShown), c.attentionShapes.size());
    return out;
}

} // namespace mfu
