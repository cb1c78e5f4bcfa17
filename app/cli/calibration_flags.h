#pragma once
// --calibration FILE of predict, sweep and plan: a trace calibration (core/calibration/) read once, and the
// calibrated prediction printed beside the uncalibrated one, never instead of it.
#include <QCommandLineParser>

#include <optional>

#include <nlohmann/json.hpp>

#include "core/calibration/trace_calibration.h"
#include "core/scenario/scenario.h"

namespace mfu::cli {

void addCalibrationOption(QCommandLineParser& parser);
// nullopt without the flag; throws InputError naming the file when it cannot be read.
std::optional<TraceCalibration> calibrationFlag(const QCommandLineParser& parser);
// The same, refused ("--calibration: ...") when it cannot apply to `scenario` (another model or GPU), as predict
// refuses it: for the commands that calibrate many layouts of one scenario (sweep, plan), before their search.
std::optional<TraceCalibration> calibrationFlagFor(const QCommandLineParser& parser, const Scenario& scenario);
// The calibrated prediction of a scenario beside its uncalibrated one (evaluate(scenario), which the caller has), the
// uncalibrated band's half-width from the shipped validation set.
CalibratedPrediction calibratedFor(
    const Scenario& scenario, const TraceCalibration& calibration, const StepPrediction& uncalibrated);
// predict --json's "calibrated" object: the calibrated figures with predict's keys, the band, the shares of the
// step resting on measured, interpolated and extrapolated terms, and each term's basis.
nlohmann::json calibratedJson(const CalibratedPrediction& p, const QString& file);
// The calibrated figures of one sweep point or planned layout: mfu, mfu_low, mfu_high, tokens_per_sec_per_gpu,
// step_time_s and shares; or {"invalid": why} when the calibration cannot apply there.
nlohmann::json calibratedSummaryJson(const Scenario& scenario, const TraceCalibration& calibration);
// The same object for a prediction the caller has calibrated (a sweep's point: calibratedAtPoint).
nlohmann::json calibratedSummaryJson(const CalibratedPrediction& prediction);
// The lines predict prints under the uncalibrated figures.
QString calibratedText(const CalibratedPrediction& p, const QString& file);

} // namespace mfu::cli
