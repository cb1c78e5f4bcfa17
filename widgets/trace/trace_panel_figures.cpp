// TracePanel's text figures: overlap and idle of the selected rank, per-rank step times with the slowest rank, the
// comparison chart, and measured MFU beside the cost model's prediction for the window's scenario.
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QStandardItemModel>

#include <cmath>
#include <optional>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/number_format.h"
#include "core/presets/gpu_match.h"
#include "core/scenario/file_facts.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/comparison.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/trace_charts.h"
#include "widgets/trace/trace_import.h"
#include "widgets/trace/trace_panel.h"

namespace mfu::widgets {

namespace {

QString ms(double seconds)
{
    return QLocale().toString(seconds * 1e3, 'f', seconds * 1e3 >= 100 ? 1 : 3) + QStringLiteral(" ms");
}
QString nsAsMs(int64_t ns, double perStep)
{
    return ms(static_cast<double>(ns) / 1e9 / perStep);
}
QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction)); // the one percent format (core/number_format.h)
}

} // namespace

void TracePanel::updateFigures()
{
    const int index = m_rank->currentIndex();
    const QList<QLabel*> all { m_steps, m_stepTime, m_busy, m_idle, m_comm, m_overlap, m_exposed, m_kernelCount,
        m_gpu };
    if (!m_run || index < 0 || index >= static_cast<int>(m_run->analysis.ranks.size())) {
        for (QLabel* l : all)
            l->setText(QStringLiteral("–"));
        return;
    }
    const trace::RankAnalysis& r = m_run->analysis.ranks[static_cast<size_t>(index)];
    const trace::Breakdown& b = r.total;
    const double n = std::max<double>(1, static_cast<double>(r.steps.size()));
    const QLocale locale;
    QString steps;
    switch (r.stepSource) {
    case trace::StepSource::GpuAnnotation:
        steps = tr("%n ProfilerStep(s) on the GPU stream", nullptr, static_cast<int>(r.steps.size()));
        break;
    case trace::StepSource::CpuAnnotation:
        steps = tr("%n ProfilerStep(s) on the CPU thread", nullptr, static_cast<int>(r.steps.size()));
        break;
    case trace::StepSource::Inferred:
        steps = tr("%n step(s) inferred from the repeating kernel sequence (no ProfilerStep annotation)", nullptr,
            static_cast<int>(r.steps.size()));
        break;
    case trace::StepSource::WholeTrace:
        steps = tr("no ProfilerStep annotation and no repeating kernel sequence: the whole trace is one step");
        break;
    }
    if (r.droppedLastStep)
        steps += tr("; the last step is left out (the profiler usually stops inside it)");
    m_steps->setText(steps);
    m_stepTime->setText(r.meanStepSeconds > 0
            ? tr("%1 mean, %2 spread (%3)")
                  .arg(ms(r.meanStepSeconds), ms(r.stepSpreadSeconds),
                      r.stepSource == trace::StepSource::Inferred ? tr("inferred steps, first kernel to first kernel")
                                                                  : tr("ProfilerStep annotations"))
            : tr("%1 per step (GPU window; no annotation)").arg(nsAsMs(b.spanNs, n)));
    m_busy->setText(tr("%1 per step, %2 of the analysed span").arg(nsAsMs(b.busyNs, n), percent(b.share(b.busyNs))));
    m_idle->setText(tr("%1 per step, %2; %3 gap(s) of 0.1 ms or more waiting on the host (%4 per step)")
                        .arg(nsAsMs(b.idleNs(), n), percent(b.share(b.idleNs())))
                        .arg(b.idleGapCount)
                        .arg(nsAsMs(b.idleGapNs, n)));
    m_comm->setText(b.commNs > 0
            ? tr("%1 per step, %2 of the span").arg(nsAsMs(b.commNs, n), percent(b.share(b.commNs)))
            : tr("none (no collective kernels)"));
    m_overlap->setText(b.commNs > 0
            ? tr("%1 (%2 per step under compute)").arg(percent(b.commOverlapFraction()), nsAsMs(b.overlapNs, n))
            : QStringLiteral("–"));
    m_exposed->setText(b.commNs > 0
            ? tr("%1 per step, %2 of the span").arg(nsAsMs(b.exposedCommNs(), n), percent(b.share(b.exposedCommNs())))
            : QStringLiteral("–"));
    m_kernelCount->setText(tr("%1 per step; %2 shorter than 10 µs (%3 of kernel time: launch overhead)")
                               .arg(locale.toString(static_cast<double>(b.kernelCount) / n, 'f', 0),
                                   locale.toString(static_cast<double>(b.tinyKernelCount) / n, 'f', 0),
                                   percent(b.kernelTimeNs > 0 ? static_cast<double>(b.tinyKernelTimeNs)
                                               / static_cast<double>(b.kernelTimeNs)
                                                              : 0.0)));
    QString gpu = r.gpuName ? QString::fromStdString(*r.gpuName) : tr("not recorded in the trace");
    if (r.gpuName) {
        const GpuMatch match = matchGpuName(*r.gpuName, m_knownHardware);
        if (match.presetId) {
            gpu += tr(" (preset %1)").arg(QString::fromStdString(*match.presetId));
        } else if (match.ambiguous()) {
            QStringList ids;
            for (const auto& id : match.candidates)
                ids << QString::fromStdString(id);
            gpu += tr(" (could be preset %1: choose in the scenario)").arg(ids.join(QStringLiteral(", ")));
        } else if (!m_knownHardware.empty()) {
            gpu += tr(" (no preset matches this name: add one with a \"match\" pattern in the user presets folder)");
        }
    }
    m_gpu->setText(gpu);
}

void TracePanel::updateMfu()
{
    const Scenario& s = m_scenario->scenario();
    QStringList notes;
    m_measuredMfu->setStyleSheet(QString());
    // Prediction: the cost model for the same scenario, whether or not a trace is open.
    double predicted = 0;
    try {
        const StepPrediction p = evaluate(s);
        predicted = p.mfu;
        m_predictedMfu->setText(tr("%1 (step %2)").arg(percent(p.mfu), ms(p.stepTimeSeconds)));
    } catch (const std::exception& e) {
        m_predictedMfu->setText(tr("not available: %1").arg(QString::fromUtf8(e.what())));
    }
    const double tokens = static_cast<double>(m_scenario->tokensPerStep());
    const FactsCheck check
        = m_run ? checkFacts(factsFromTrace(m_run->analysis), s, tokens, m_knownHardware) : FactsCheck {};
    // Said beside measured MFU whatever it shows: the peak it divides by is then the scenario's guess.
    const QString noGpu = !m_run || check.gpuRecorded
        ? QString()
        : tr(" (the trace records no GPU: the scenario's %1 is assumed)")
              .arg(QString::fromStdString(
                  s.cluster.hardware.name.empty() ? s.cluster.hardware.id : s.cluster.hardware.name));
    if (!m_run || !(m_run->analysis.meanStepSeconds > 0)) {
        m_measuredMfu->setText(
            (m_run ? tr("needs ProfilerStep annotations (a measured step time)") : QStringLiteral("–")) + noGpu);
        m_mfuNote->setText(tr("Measured MFU uses the scenario's model, FLOP/token formula, tokens per step, GPU count "
                              "and GPU with the trace's mean step time."));
        return;
    }
    std::optional<double> fpt;
    try {
        fpt = scenarioFlopsPerToken(s); // 6N for a bare parameter count, as on every other surface
    } catch (const std::exception&) {
        fpt.reset(); // said below: the scenario's model cannot give a FLOP/token
    }
    m_mfuNote->clear();
    if (!fpt || !(*fpt > 0) || !(tokens > 0)) {
        m_measuredMfu->setText(
            (m_scenario->layoutError().isEmpty() ? tr("not available: the scenario needs a model and a positive batch")
                                                 : tr("not available: %1").arg(m_scenario->layoutError()))
            + noGpu);
        return;
    }
    try {
        const MfuResult m = scenarioMfuAtStepTime(s, tokens, m_run->analysis.meanStepSeconds);
        if (const auto why = measuredMfuWithheld(check, m.mfu)) {
            // Never a number the scenario cannot stand behind: name the fact that disagrees instead.
            m_measuredMfu->setText(tr("not shown: %1").arg(QString::fromStdString(*why)) + noGpu);
            m_measuredMfu->setStyleSheet(errorStyleSheet());
        } else {
            QString text = percent(m.mfu);
            if (predicted > 0)
                text += tr(" (%1 the prediction: %2 pp)")
                            .arg(m.mfu >= predicted ? tr("above") : tr("below"),
                                QLocale().toString(std::abs(m.mfu - predicted) * 100, 'f', 1));
            m_measuredMfu->setText(text + noGpu);
            m_measuredMfu->setStyleSheet(QString());
        }
    } catch (const std::exception& e) {
        m_measuredMfu->setText(tr("not available: %1").arg(QString::fromUtf8(e.what())) + noGpu);
        m_measuredMfu->setStyleSheet(QString());
        return;
    }
    notes << tr("From the trace's mean step time %1 with the scenario's %2 (%3 tokens per step on %n GPU(s), %4).",
        nullptr, s.cluster.gpuCount)
                 .arg(ms(m_run->analysis.meanStepSeconds),
                     QString::fromStdString(s.model.name.empty() ? s.model.id : s.model.name),
                     QLocale().toString(tokens, 'f', 0),
                     QString::fromStdString(
                         s.cluster.hardware.name.empty() ? s.cluster.hardware.id : s.cluster.hardware.name));
    m_mfuNote->setText(notes.join(QLatin1Char(' ')));
}

void TracePanel::updateRanks()
{
    m_ranks->clear();
    m_ranks->setHorizontalHeaderLabels({ tr("Rank"), tr("GPU"), tr("Steps"), tr("Mean step (ms)"), tr("Spread (ms)"),
        tr("Busy (%)"), tr("Idle (%)"), tr("Exposed comm. (ms/step)"), tr("File") });
    m_slowest->clear();
    if (!m_run)
        return;
    const QLocale locale;
    for (const auto& r : m_run->analysis.ranks) {
        const double n = std::max<double>(1, static_cast<double>(r.steps.size()));
        QList<QStandardItem*> row;
        auto number = [&](double v, int decimals) {
            auto* item = new QStandardItem(locale.toString(v, 'f', decimals));
            item->setData(v, Qt::UserRole);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            return item;
        };
        row << number(r.rank, 0) << new QStandardItem(r.gpuName ? QString::fromStdString(*r.gpuName) : tr("unknown"))
            << number(static_cast<double>(r.steps.size()), 0) << number(r.meanStepSeconds * 1e3, 3)
            << number(r.stepSpreadSeconds * 1e3, 3) << number(100 * r.total.share(r.total.busyNs), 1)
            << number(100 * r.total.share(r.total.idleNs()), 1)
            << number(static_cast<double>(r.total.exposedCommNs()) / 1e6 / n, 3)
            << new QStandardItem(QFileInfo(QString::fromStdString(r.sourceFile)).fileName());
        for (QStandardItem* item : row)
            item->setEditable(false);
        m_ranks->appendRow(row);
    }
    const auto& a = m_run->analysis;
    if (a.straggler)
        m_slowest->setText(
            tr("Slowest rank: %1, with %2 per step more %3 than the median rank (mean step over ranks %4).")
                .arg(a.straggler->rank)
                .arg(ms(a.straggler->excessSecondsPerStep), categoryLabel(a.straggler->cause), ms(a.meanStepSeconds)));
    else
        m_slowest->setText(tr("One rank: open one file per rank (or a folder of them) to compare ranks."));
}

void TracePanel::updateComparison()
{
    const bool compare = m_run && m_baseline;
    m_comparisonChart->setVisible(compare);
    m_comparisonHint->setVisible(!compare);
    if (compare) {
        fillComparisonChart(m_comparisonChart, trace::compareRuns(m_baseline->analysis, m_run->analysis));
        return;
    }
    m_comparisonChart->clearSeries();
    m_comparisonChart->setTitle(tr("Baseline vs optimised"));
    if (m_baseline)
        m_comparisonHint->setText(tr("Baseline %1 is loaded: open the optimised run with Open trace... to compare.")
                                      .arg(QFileInfo(m_baseline->paths.value(0)).fileName()));
}

} // namespace mfu::widgets
