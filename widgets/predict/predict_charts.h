#pragma once
// What the Predict panel draws, as functions from core results to a ChartView: the MFU waterfall and the memory
// breakdown of one prediction, and the sweeps (sequence length, GPU count, precision) with the current configuration,
// the planner's best per point, the points that do not fit (marked, never dropped) and the user's measured points.
// Every number comes from core (StepPrediction, mfuWaterfall, runSweep); these only choose series and labels.
#include <QString>

#include <optional>
#include <vector>

#include "core/costmodel/error_band.h"
#include "core/costmodel/sweep.h"
#include "core/scenario/scenario.h"

namespace mfu::widgets {

class ChartView;

// Series names the panel and its tests share.
namespace series {
inline constexpr const char* kCurrent = "This configuration";
// Short enough for a sweep's six entries to sit in two columns below a chart at 1280x720; the markers are this
// configuration's, beside its line.
inline constexpr const char* kCurrentMisfit = "Does not fit in memory";
inline constexpr const char* kCurrentInvalid = "Cannot be laid out (shown at 0)";
// Layouts within the error band of the fastest are ties ranked simplest first (planner.h): the line can run below
// this configuration's, which the legend says rather than leave to read as a contradiction.
inline constexpr const char* kBest = "Planner's best (simplest of the ties)";
inline constexpr const char* kBestNone = "Planner: no layout fits or runs the batch (shown at 0)";
inline constexpr const char* kMeasured = "Measured";
inline constexpr const char* kCalibrated = "This configuration, calibrated";
inline constexpr const char* kCapacity = "GPU memory capacity";
inline constexpr const char* kBandLow = "This configuration: error band, low edge"; // not in the legend
inline constexpr const char* kBandHigh = "Likely range (error band)";
} // namespace series

// Peak 100% -> each loss in MFU points -> achieved MFU, as stacked bars (MFU left + points lost at each step).
void showMfuWaterfall(ChartView* chart, const StepPrediction& prediction);
// Stacked GiB per GPU (parameters, gradients, optimizer state, activations, temporary buffers, reserved) for the
// current configuration and, when known, the planner's best, against the capacity line.
void showMemoryBreakdown(ChartView* chart, const StepPrediction& current, const PlannedConfig* best);
// MFU (%) along sequence length (log2 x), GPU count (log x) or the network per GPU (log2 x); the current
// configuration's fitting points carry their own error band (SweepPoint::currentBand, from the core sweep) as a shaded
// region. Each kind of point has its own symbol and legend entry: does not fit (crossed circle), cannot be laid out
// (grey X, at 0), the planner found nothing (triangle, at 0). `own` is the scenario's own prediction, drawn as a star
// at its sequence length, GPU count or network (null: it cannot be laid out, drawn at 0).
// `calibratedMfu`: each point's MFU calibrated to a trace (calibratedAtPoint; nullopt where it has none), drawn as a
// line of its own beside the uncalibrated one; empty: none.
void showMfuSweep(ChartView* chart, const SweepResult& sweep, const Scenario& scenario,
    const StepPrediction* own = nullptr, const std::vector<std::optional<double>>& calibratedMfu = {});
// A line sweep's axis (sequence length, GPU count or network per GPU), as the panel and the report name it, and where
// the scenario stands on it: one table, so that a chart, its star and the report's caption cannot disagree.
struct LineSweepAxis {
    QString title; // "MFU vs network per GPU"
    QString label; // the x axis: "Network per GPU"
    QString unit; // "Gb/s"
    double logBase = 10;
    QString across; // the report's caption: "Predicted MFU ... across <networks per GPU ...>"
    QString stem; // the report's file name: "mfu_vs_network"
    double own = 0; // the scenario's x; 0: it has no point on the axis
    QString ownAt; // the scenario's x as its star names it: "8,192 tokens", "400 Gb/s", "16 GPUs"
};
// The precision axis is drawn by showPrecisionTflops and showPrecisionMfu, not as a line: it reads as GPU count.
LineSweepAxis lineSweepAxis(SweepAxis axis, const Scenario& scenario);
// The own point's legend entry: "This scenario (8,192 tokens)", "(400 Gb/s)", "... : does not fit", "... : cannot be
// laid out".
QString ownPointName(const Scenario& scenario, SweepAxis axis, const StepPrediction* own);
// BF16 vs BF16+FP8: achieved TFLOPS per GPU (left axis; a right-hand scale reads the same lines per node, never a
// second set of lines on the per-GPU axis), and MFU against the BF16 and the FP8 dense peak; the scenario's own
// prediction (`own`, null when it cannot be laid out) is a star at its precision.
void showPrecisionTflops(
    ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const StepPrediction* own = nullptr);
void showPrecisionMfu(
    ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const StepPrediction* own = nullptr);

// The measured points that belong on a sweep of the scenario along an axis (the other coordinates match); none on the
// network axis, as a measured point states no network.
std::vector<MeasuredPoint> measuredOnAxis(const Scenario& scenario, SweepAxis axis);

} // namespace mfu::widgets
