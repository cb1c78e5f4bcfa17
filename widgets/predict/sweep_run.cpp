#include "widgets/predict/sweep_run.h"

#include <exception>
#include <optional>

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
}

void SweepRun::start(const Scenario& s, std::vector<double> values, const ErrorBandModel& bands)
{
    struct Drawn {
        SweepResult sweep;
        std::optional<StepPrediction> own; // the scenario's own point, wherever it falls on the axis
    };
    // While it runs the chart says so: the last sweep's curves were another scenario's, and its "This scenario"
    // point would name a configuration no longer on screen.
    for (ChartView* chart : { m_chart, m_second })
        if (chart)
            chart->showEmpty(tr("Predicting each point of the sweep..."));
    const SweepAxis axis = m_axis;
    m_job->start<Drawn>(
        [s, axis, values = std::move(values), bands](JobControl& control) mutable {
            // Each point's own error band (its sequence range, its GPU count's tier), from a copy of the residuals
            // this job owns; the same core call as the report's sweeps and `sweep`.
            Drawn d;
            d.sweep = scenarioSweep(
                s, axis, &bands, std::move(values), true, [&control](double f) { control.setProgress(f); },
                &control.cancel);
            try {
                d.own = evaluate(s);
            } catch (const std::exception&) {
                d.own.reset(); // drawn as "cannot be laid out"
            }
            return d;
        },
        [this, s](Drawn& d) {
            const StepPrediction* own = d.own ? &*d.own : nullptr;
            if (m_axis == SweepAxis::Precision) {
                showPrecisionTflops(m_chart, d.sweep, s, own);
                if (m_second)
                    showPrecisionMfu(m_second, d.sweep, s, own);
            } else if (const std::string note = m_axis == SweepAxis::Network ? networkSweepNote(s) : std::string();
                       !note.empty()) {
                m_chart->showEmpty(QString::fromStdString(note)); // a flat line would say the same, unexplained
            } else {
                showMfuSweep(m_chart, d.sweep, s, own);
            }
        });
}

} // namespace mfu::widgets
