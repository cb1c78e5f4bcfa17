#include "widgets/trace/rank_figures.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include "core/presets/gpu_match.h"
#include "core/trace/collective_sizes.h"
#include "widgets/number_text.h"

namespace mfu::widgets {

namespace {

QString nsAsMs(int64_t ns, double perStep)
{
    return millisecondsText(static_cast<double>(ns) / 1e9 / perStep);
}
// Where the step time comes from, in the words of the steps line: never "ProfilerStep annotations" for a trace
// that has none.
QString stepTimeSource(trace::StepSource source)
{
    switch (source) {
    case trace::StepSource::GpuAnnotation:
        return QObject::tr("GPU-side ProfilerStep annotations: the trace has no CPU ones");
    case trace::StepSource::CpuAnnotation:
        return QObject::tr("CPU ProfilerStep annotations: the loop's step");
    case trace::StepSource::Inferred:
        return QObject::tr("inferred steps, first kernel to first kernel");
    case trace::StepSource::WholeTrace:
        return QObject::tr("the whole trace as one step: no ProfilerStep annotation");
    }
    return {};
}

} // namespace

QLabel* addFigure(QVBoxLayout* list, const QString& label, const char* objectName)
{
    auto* name = new QLabel(label);
    auto* value = new QLabel(QStringLiteral("–"));
    value->setObjectName(QLatin1String(objectName));
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    name->setBuddy(value);
    if (list->count() > 0)
        list->addSpacing(kFigureGap);
    list->addWidget(name);
    list->addWidget(value);
    return value;
}

RankFigures::RankFigures(QWidget* parent)
    : QGroupBox(tr("Figures (selected rank, per analysed step)"), parent)
{
    auto* form = new QVBoxLayout(this);
    m_steps = addFigure(form, tr("Steps:"), "steps");
    m_stepTime = addFigure(form, tr("Step time:"), "stepTime");
    m_busy = addFigure(form, tr("GPU busy:"), "busy");
    m_idle = addFigure(form, tr("GPU idle:"), "idle");
    m_comm = addFigure(form, tr("Communication:"), "comm");
    m_overlap = addFigure(form, tr("Comm. hidden under compute:"), "overlap");
    m_exposed = addFigure(form, tr("Exposed communication:"), "exposedComm");
    m_collectives = addFigure(form, tr("Collectives by size:"), "collectiveSizes");
    m_kernelCount = addFigure(form, tr("Kernels:"), "kernelCount");
    m_gpu = addFigure(form, tr("GPU:"), "gpu");
}

void RankFigures::show(const trace::RankAnalysis* rank, const std::vector<HardwareSpec>& known)
{
    if (!rank) {
        for (QLabel* l :
            { m_steps, m_stepTime, m_busy, m_idle, m_comm, m_overlap, m_exposed, m_collectives, m_kernelCount, m_gpu })
            l->setText(QStringLiteral("–"));
        return;
    }
    const trace::RankAnalysis& r = *rank;
    const trace::Breakdown& b = r.total;
    const double n = std::max<double>(1, static_cast<double>(r.steps.size()));
    const QLocale locale;
    // Which steps and why, and what the GPU did in them: the core's sentences (the CLI prints the same).
    m_steps->setText(QString::fromStdString(r.stepSelection));
    QString stepTime = r.meanStepSeconds > 0
        ? tr("%1 mean, %2 standard deviation (%3)")
              .arg(millisecondsText(r.meanStepSeconds), millisecondsText(r.stepSpreadSeconds),
                  stepTimeSource(r.stepSource))
        : tr("%1 per step (GPU window; no annotation)").arg(nsAsMs(b.spanNs, n));
    if (const std::string note = trace::stepTimingNote(r); !note.empty())
        stepTime += QLatin1Char('\n') + QString::fromStdString(note);
    m_stepTime->setText(stepTime);
    m_busy->setText(
        tr("%1 per step, %2 of the analysed span").arg(nsAsMs(b.busyNs, n), percentText(b.share(b.busyNs))));
    m_idle->setText(tr("%1 per step, %2; %3")
                        .arg(nsAsMs(b.idleNs(), n), percentText(b.share(b.idleNs())),
                            QString::fromStdString(trace::idleGapText(trace::idleGapsPerStep(b, r.steps.size())))));
    m_comm->setText(b.commNs > 0
            ? tr("%1 per step, %2 of the span").arg(nsAsMs(b.commNs, n), percentText(b.share(b.commNs)))
            : tr("none (no collective kernels)"));
    m_overlap->setText(b.commNs > 0
            ? tr("%1 (%2 per step under compute)").arg(percentText(b.commOverlapFraction()), nsAsMs(b.overlapNs, n))
            : QStringLiteral("–"));
    m_exposed->setText(b.commNs > 0 ? tr("%1 per step, %2 of the span")
                                          .arg(nsAsMs(b.exposedCommNs(), n), percentText(b.share(b.exposedCommNs())))
                                    : QStringLiteral("–"));
    QStringList sizes;
    for (const trace::CollectiveSizeStat& c : trace::collectiveSizeStats(r.collectives))
        sizes << QString::fromStdString(trace::collectiveSizeText(c));
    m_collectives->setText(sizes.isEmpty()
            ? (b.commNs > 0 ? tr("not recorded (the trace has no message sizes beside its collectives)")
                            : QStringLiteral("–"))
            : sizes.join(QLatin1Char('\n')));
    m_kernelCount->setText(tr("%1 per step; %2 shorter than 10 µs (%3 of kernel time: launch overhead)")
                               .arg(locale.toString(static_cast<double>(b.kernelCount) / n, 'f', 0),
                                   locale.toString(static_cast<double>(b.tinyKernelCount) / n, 'f', 0),
                                   percentText(b.kernelTimeNs > 0 ? static_cast<double>(b.tinyKernelTimeNs)
                                               / static_cast<double>(b.kernelTimeNs)
                                                                  : 0.0)));
    QString gpu = r.gpuName ? QString::fromStdString(*r.gpuName) : tr("not recorded in the trace");
    if (r.gpuName) {
        const GpuMatch match = matchGpuName(*r.gpuName, known);
        if (match.presetId) {
            gpu += tr(" (preset %1)").arg(QString::fromStdString(*match.presetId));
        } else if (match.ambiguous()) {
            QStringList ids;
            for (const auto& id : match.candidates)
                ids << QString::fromStdString(id);
            gpu += tr(" (could be preset %1: choose in the scenario)").arg(ids.join(QStringLiteral(", ")));
        } else if (!known.empty()) {
            gpu += tr(" (no preset matches this name: add one with a \"match\" pattern in the user presets folder)");
        }
    }
    m_gpu->setText(gpu);
}

} // namespace mfu::widgets
