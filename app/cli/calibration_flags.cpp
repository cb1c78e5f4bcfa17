#include "app/cli/calibration_flags.h"

#include "app/cli/scenario_flags.h"
#include "app/validation_store.h"
#include "core/calibration/calibration_file.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace mfu::cli {

void addCalibrationOption(QCommandLineParser& parser)
{
    parser.addOption({ QStringLiteral("calibration"),
        QStringLiteral("A calibration written by 'calibrate': also print the prediction with each term as that trace "
                       "measured it, and how much of it rests on measured, interpolated and extrapolated terms"),
        QStringLiteral("FILE") });
}

std::optional<TraceCalibration> calibrationFlag(const QCommandLineParser& parser)
{
    if (!parser.isSet(QStringLiteral("calibration")))
        return std::nullopt;
    return readCalibrationFile(parser.value(QStringLiteral("calibration")).toStdString());
}

CalibratedPrediction calibratedFor(const Scenario& scenario, const TraceCalibration& calibration)
{
    const StepPrediction p = evaluate(scenario);
    const ErrorBand band = errorBandFor(scenario, p, app::shippedErrorBands());
    const double halfWidth = std::max(0.0, (band.stepTimeSecondsHigh - band.stepTimeSecondsLow) / 2.0)
        / std::max(1e-12, p.stepTimeSeconds);
    return calibratedPrediction(scenario, calibration, halfWidth);
}

nlohmann::json calibratedJson(const CalibratedPrediction& p, const QString& file)
{
    nlohmann::json out = predictionJson(p.calibrated);
    out["calibration_file"] = file.toStdString();
    out["mfu_low"] = p.mfuLow;
    out["mfu_high"] = p.mfuHigh;
    out["step_time_s_low"] = p.stepSecondsLow;
    out["step_time_s_high"] = p.stepSecondsHigh;
    out["band_half_width"] = p.bandHalfWidth;
    out["shares"] = { { "measured", p.measuredShare }, { "interpolated", p.interpolatedShare },
        { "extrapolated", p.extrapolatedShare } };
    nlohmann::json terms = nlohmann::json::array();
    for (const CalibratedTermTime& t : p.terms)
        terms.push_back({ { "term", calibratedTermKey(t.term) }, { "seconds", t.seconds },
            { "basis", termBasisKey(t.basis) }, { "why", t.why } });
    out["terms"] = terms;
    return out;
}

nlohmann::json calibratedSummaryJson(const Scenario& scenario, const TraceCalibration& calibration)
{
    try {
        const CalibratedPrediction p = calibratedFor(scenario, calibration);
        return { { "mfu", p.calibrated.mfu }, { "mfu_low", p.mfuLow }, { "mfu_high", p.mfuHigh },
            { "tokens_per_sec_per_gpu", p.calibrated.tokensPerSecPerGpu },
            { "step_time_s", p.calibrated.stepTimeSeconds },
            { "shares",
                { { "measured", p.measuredShare }, { "interpolated", p.interpolatedShare },
                    { "extrapolated", p.extrapolatedShare } } } };
    } catch (const InputError& e) {
        return { { "invalid", e.what() } };
    }
}

QString calibratedText(const CalibratedPrediction& p, const QString& file)
{
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    QString t = QStringLiteral("  calibrated on a trace (%1):\n").arg(file);
    t += QStringLiteral("    %1 %2 (likely %3-%4), step %5 (uncalibrated %6, step %7)\n")
             .arg(QStringLiteral("MFU"), -22)
             .arg(q(formatPercent(p.calibrated.mfu)))
             .arg(q(formatPercent(p.mfuLow)))
             .arg(q(formatPercent(p.mfuHigh)))
             .arg(q(formatSeconds(p.calibrated.stepTimeSeconds)))
             .arg(q(formatPercent(p.uncalibrated.mfu)))
             .arg(q(formatSeconds(p.uncalibrated.stepTimeSeconds)));
    t += QStringLiteral("    %1 measured %2, interpolated %3, extrapolated %4 of the step\n")
             .arg(QStringLiteral("rests on"), -22)
             .arg(q(formatPercent(p.measuredShare, 0)))
             .arg(q(formatPercent(p.interpolatedShare, 0)))
             .arg(q(formatPercent(p.extrapolatedShare, 0)));
    for (const CalibratedTermTime& term : p.terms)
        if (term.seconds > 0)
            t += QStringLiteral("    %1 %2 %3%4\n")
                     .arg(q(std::string(calibratedTermKey(term.term))), -22)
                     .arg(q(formatSeconds(term.seconds)), 10)
                     .arg(q(std::string(termBasisKey(term.basis))))
                     .arg(term.why.empty() ? QString() : QStringLiteral(": ") + q(term.why));
    return t;
}

} // namespace mfu::cli
