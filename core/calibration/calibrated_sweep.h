#pragma once
// A sweep's points calibrated to a trace: each point's configuration predicted with the traced run's terms, beside
// its uncalibrated prediction and band (core/costmodel/sweep.h). One function for `sweep --calibration` and the
// Predict panel's calibrated sweep lines.
#include <optional>
#include <vector>

#include "core/calibration/trace_calibration.h"
#include "core/costmodel/sweep.h"

namespace mfu {

// The calibrated prediction of the current configuration at one point of a sweep of `scenario` along `axis`, its
// extrapolated time trusted as far as the point's own band (SweepPoint::currentBand; the narrowest band without
// one). Throws InputError when the point cannot be laid out or does not fit in memory, or the calibration cannot apply
// (another model or GPU).
CalibratedPrediction calibratedAtPoint(
    const Scenario& scenario, SweepAxis axis, const SweepPoint& point, const TraceCalibration& calibration);

// The calibrated MFU of each point of a sweep whose current configuration has an MFU to show (laid out and fitting),
// nullopt elsewhere and at every point when the calibration cannot apply: the line the Predict panel and the
// report draw beside the uncalibrated one. Empty for a precision sweep, whose FP8 and FP4 points run GEMMs a BF16
// trace never ran (all of it extrapolated).
std::vector<std::optional<double>> calibratedSweepMfu(
    const Scenario& scenario, const SweepResult& sweep, const TraceCalibration& calibration);

} // namespace mfu
