#include "core/calibration/calibrated_sweep.h"

#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"
#include "core/errors.h"

namespace mfu {

CalibratedPrediction calibratedAtPoint(
    const Scenario& scenario, SweepAxis axis, const SweepPoint& point, const TraceCalibration& calibration)
{
    if (!point.currentValid)
        throw InputError(point.currentProblem);
    // A configuration that does not fit has no MFU, uncalibrated or calibrated (`sweep`'s text had printed
    // "does not fit" beside a calibrated 65.9%).
    if (!point.current.fits)
        throw InputError("does not fit in memory (" + memoryUseText(point.current) + " per GPU)");
    const Scenario at = scenarioAt(scenario, axis, point.x);
    const ErrorBand band = point.currentBand ? *point.currentBand : errorBandFor(at, point.current, ErrorBandModel {});
    return calibratedPrediction(at, calibration, point.current, relativeStepBandHalfWidth(band, point.current));
}

std::vector<std::optional<double>> calibratedSweepMfu(
    const Scenario& scenario, const SweepResult& sweep, const TraceCalibration& calibration)
{
    std::vector<std::optional<double>> out;
    if (sweep.axis == SweepAxis::Precision)
        return out;
    for (const SweepPoint& p : sweep.points) {
        out.emplace_back();
        try {
            if (p.currentShown())
                out.back() = calibratedAtPoint(scenario, sweep.axis, p, calibration).calibrated.mfu;
        } catch (const InputError&) {
            // another model or GPU: no line (the prediction's calibrated figures say why)
        }
    }
    return out;
}

} // namespace mfu
