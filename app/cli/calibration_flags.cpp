#include "app/cli/calibration_flags.h"

#include "app/cli/cli_common.h"
#include "app/cli/scenario_flags.h"
#include "app/validation_store.h"
#include "core/calibration/calibration_file.h"
#include "core/calibration/calibration_text.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace mfu::cli {

void addCalibrationOption(QCommandLineParser& parser)
{
    parser.addOption(option(QStringLiteral("calibration"),
        QStringLiteral("A calibration written by 'calibrate': also print the prediction with each term as that trace "
                       "measured it, and how much of it rests on measured, interpolated and extrapolated terms"),
        QStringLiteral("FILE")));
}

std::optional<TraceCalibration> calibrationFlag(const QCommandLineParser& parser)
{
    if (!parser.isSet(QStringLiteral("calibration")))
        return std::nullopt;
    return readCalibrationFile(parser.value(QStringLiteral("calibration")).toStdString());
}

std::optional<TraceCalibration> calibrationFlagFor(const QCommandLineParser& parser, const Scenario& scenario)
{
    auto calibration = calibrationFlag(parser);
    if (calibration)
        if (const auto why = calibrationMismatch(scenario, *calibration))
            throw InputError("--calibration: " + *why);
    return calibration;
}

CalibratedPrediction calibratedFor(
    const Scenario& scenario, const TraceCalibration& calibration, const StepPrediction& uncalibrated)
{
    const ErrorBand band = errorBandFor(scenario, uncalibrated, app::shippedErrorBands());
    return calibratedPrediction(scenario, calibration, uncalibrated, relativeStepBandHalfWidth(band, uncalibrated));
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

nlohmann::json calibratedSummaryJson(const CalibratedPrediction& p)
{
    return { { "mfu", p.calibrated.mfu }, { "mfu_low", p.mfuLow }, { "mfu_high", p.mfuHigh },
        { "tokens_per_sec_per_gpu", p.calibrated.tokensPerSecPerGpu }, { "step_time_s", p.calibrated.stepTimeSeconds },
        { "shares",
            { { "measured", p.measuredShare }, { "interpolated", p.interpolatedShare },
                { "extrapolated", p.extrapolatedShare } } } };
}

nlohmann::json calibratedSummaryJson(const Scenario& scenario, const TraceCalibration& calibration)
{
    try {
        return calibratedSummaryJson(calibratedFor(scenario, calibration, evaluate(scenario)));
    } catch (const InputError& e) {
        return { { "invalid", e.what() } };
    }
}

QString calibratedText(const CalibratedPrediction& p, const QString& file)
{
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    QString t = QStringLiteral("  calibrated on a trace (%1):\n").arg(file);
    t += QStringLiteral("    %1\n").arg(q(calibratedFiguresText(p)));
    t += QStringLiteral("    rests on %1\n").arg(q(calibratedBasisText(p)));
    for (const std::string& line : calibratedTermLines(p))
        t += QStringLiteral("    %1\n").arg(q(line));
    return t;
}

} // namespace mfu::cli
