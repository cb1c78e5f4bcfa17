#pragma once
// One of the Predict panel's sweeps: MFU over sequence length or GPU count (one chart), or BF16 against BF16+FP8 (two
// charts: TFLOPS, MFU against each peak), run in a BackgroundJob with each point's own error band and the planner's
// best per point; a newer start() cancels the older run and only the newest result is drawn, with the scenario's own
// point marked.
#include <QObject>

#include <optional>
#include <vector>

#include "core/calibration/trace_calibration.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/sweep.h"
#include "core/scenario/scenario.h"

namespace mfu::widgets {

class BackgroundJob;
class ChartView;

class SweepRun : public QObject {
    Q_OBJECT
public:
    // A precision sweep draws into both charts; the others into the first.
    SweepRun(SweepAxis axis, ChartView* chart, ChartView* second = nullptr, QObject* parent = nullptr);

    // values: the points (empty: the core's defaults); bands: the residuals each point's band comes from;
    // calibration: a trace calibration whose prediction of each point a sequence, GPU-count or network sweep draws
    // beside the uncalibrated line (none where it cannot apply).
    void start(const Scenario& scenario, std::vector<double> values, const ErrorBandModel& bands,
        std::optional<TraceCalibration> calibration = std::nullopt);
    BackgroundJob* job() const { return m_job; }

private:
    SweepAxis m_axis;
    ChartView* m_chart;
    ChartView* m_second;
    BackgroundJob* m_job;
};

} // namespace mfu::widgets
