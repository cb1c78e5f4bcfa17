#include "widgets/predict/sweep_run.h"

#include <exception>
#include <optional>

#include "core/calibration/calibrated_sweep.h"
#include "core/costmodel/cost_model.h"
#include "widgets/charts/chart_view.h"
#include "widgets/jobs/background_job.h"
#include "widgets/predict/predict_charts.h"

namespace mfu::widgets {

SweepRun::SweepRun(SweepAxis axis, ChartView* chart, ChartView* second, QObject* parent)
    : QObject(parent)
    , m_axis(axis)
    , m_chart(chart)
    , m_second(second)
    , m_job(new BackgroundJob(this))
{
    // Cancelled, the chart would say "Predicting..." for good: it says the sweep was stopped, and how to run it.
    connect(m_job, &BackgroundJob::cancelled, this, [this] {
        for (ChartView* c : { m_chart, m_second })
            if (c)
                c->showEmpty(tr("Cancelled before this sweep finished; change the scenario to run it again."));
    });
}

void SweepRun::start(const Scenario& s, std::vector<double> values, const ErrorBandModel& bands,
    std::optional<TraceCalibration> calibration)
{
    struct Drawn {
        SweepResult sweep;
        std::optional<StepPrediction> own; // the scenario's own point, wherever it falls on the axis
        std::vector<std::optional<double>> calibratedMfu; // per point, with a calibration
    };
    // A run inside one scale-up domain has no network sweep to draw: the network carries none of its traffic. Its
    // chart says why at once, and the job below computes nothing; it still starts, so that an older sweep still
    // running is superseded and cannot draw over the sentence.
    const std::string note = m_axis == SweepAxis::Network ? networkSweepNote(s) : std::string();
    // While it runs the chart says so: the last sweep's curves were another scenario's, and its "This scenario"
    // point would name a configuration no longer on screen.
    for (ChartView* chart : { m_chart, m_second })
        if (chart)
            chart->showEmpty(note.empty() ? tr("Predicting each point of the sweep...") : QString::fromStdString(note));
    const SweepAxis axis = m_axis;
    m_job->start<Drawn>(
        [s, axis, values = std::move(values), bands, flat = !note.empty(), calibration = std::move(calibration)](
            JobControl& control) mutable {
            Drawn d;
            if (flat)
                return d;
            // Each point's own error band (its sequence range, its GPU count's tier), from a copy of the residuals
            // this job owns; the same core call as the report's sweeps and `sweep`.
            d.sweep = scenarioSweep(
                s, axis, &bands, std::move(values), true, [&control](double f) { control.setProgress(f); },
                &control.cancel);
            try {
                d.own = evaluate(s);
            } catch (const std::exception&) {
                d.own.reset(); // drawn as "cannot be laid out"
            }
            // The calibrated line: the same call as `sweep --calibration` and the report.
            if (calibration)
                d.calibratedMfu = calibratedSweepMfu(s, d.sweep, *calibration);
            return d;
        },
        [this, s, note](Drawn& d) {
            const StepPrediction* own = d.own ? &*d.own : nullptr;
            if (!note.empty()) {
                m_chart->showEmpty(QString::fromStdString(note)); // a flat line would say the same, unexplained
            } else if (m_axis == SweepAxis::Precision) {
                showPrecisionTflops(m_chart, d.sweep, s, own);
                if (m_second)
                    showPrecisionMfu(m_second, d.sweep, s, own);
            } else {
                showMfuSweep(m_chart, d.sweep, s, own, d.calibratedMfu);
            }
        });
}

} // namespace mfu::widgets
