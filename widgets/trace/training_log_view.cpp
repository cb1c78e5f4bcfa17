#include "widgets/trace/training_log_view.h"

#include <algorithm>

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/diagnosis/diagnosis_json.h"
#include "core/diagnosis/log_diagnosis.h"
#include "core/facts/shown_log_mfu.h"
#include "core/number_format.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

QString figure(const std::optional<double>& v, double scale, int decimals, const QString& unit)
{
    return v ? QString::fromStdString(formatNumber(*v * scale, decimals)) + unit : QObject::tr("not logged");
}

// A line, or a marker when there is one point only (a line through one point draws nothing).
void addSeries(
    ChartView* chart, const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit)
{
    if (x.size() == 1 || (x.size() == 2 && x.front() == x.back()))
        chart->addScatter(name, { x.front() }, { y.front() }, unit);
    else
        chart->addLine(name, x, y, unit);
}

QLabel* textLabel(const char* objectName)
{
    auto* label = new QLabel;
    label->setObjectName(QLatin1String(objectName));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    return label;
}

} // namespace

TrainingLogView::TrainingLogView(ScenarioModel* scenario, QWidget* parent)
    : QWidget(parent)
    , m_scenario(scenario)
{
    m_throughput = new ChartView;
    m_throughput->setIntegerX(); // steps are whole
    m_throughput->setObjectName(QStringLiteral("logThroughputChart"));
    m_throughput->setAccessibleName(tr("Training log: throughput per step"));
    m_mfu = new ChartView;
    m_mfu->setIntegerX();
    m_mfu->setObjectName(QStringLiteral("logMfuChart"));
    m_mfu->setAccessibleName(tr("Training log: claimed and recomputed MFU per step"));
    m_summary = textLabel("logSummary");
    m_summary->setTextFormat(Qt::RichText);
    m_findings = textLabel("logFindings");
    m_findings->setTextFormat(Qt::PlainText); // messages may hold a '<'

    auto* text = new QWidget;
    auto* textLayout = new QVBoxLayout(text);
    textLayout->addWidget(m_summary);
    textLayout->addWidget(m_findings);
    textLayout->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(text);
    scroll->setWidgetResizable(true);
    scroll->setAccessibleName(tr("Training log summary"));
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(m_throughput);
    charts->addWidget(m_mfu);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(charts);
    split->setStretchFactor(1, 1);
    split->setSizes({ 420, 580 }); // findings are paragraphs: give them room to read
    // Its own Open button: the tab is found before the Trace panel's toolbar is understood.
    auto* open = new QPushButton(tr("Open training log..."));
    open->setObjectName(QStringLiteral("openTrainingLog"));
    open->setToolTip(tr("torchtitan, Megatron-LM, nanoGPT or similar logs (*.log, *.txt, *.out)"));
    connect(open, &QPushButton::clicked, this, &TrainingLogView::openRequested);
    auto* bar = new QHBoxLayout;
    bar->addWidget(open);
    bar->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(split);
    connect(m_scenario, &ScenarioModel::changed, this, &TrainingLogView::refresh);
    refresh();
}

TrainingLogView::~TrainingLogView() = default;

void TrainingLogView::setLog(const trace::TrainingLog& log, const QString& path)
{
    m_log = std::make_unique<trace::TrainingLog>(log);
    m_path = path;
    refresh();
}

void TrainingLogView::clear()
{
    m_log.reset();
    m_path.clear();
    refresh();
}

void TrainingLogView::setKnownHardware(std::vector<HardwareSpec> hardware)
{
    m_known = std::move(hardware);
    refresh();
}

QString TrainingLogView::summaryText() const
{
    return m_summary->text();
}

QString TrainingLogView::findingsText() const
{
    return m_findings->text();
}

void TrainingLogView::refresh()
{
    m_throughput->clearSeries();
    m_mfu->clearSeries();
    if (!m_log) {
        // Nothing of the last log's axes either: an empty view says no log is open.
        m_throughput->showEmpty(tr("Open a training log to see its throughput per step."));
        m_mfu->showEmpty(tr("Open a training log to see the MFU it claims per step."));
        m_throughput->setTitle(tr("Throughput per step"));
        m_mfu->setTitle(tr("MFU per step"));
        m_summary->setText(tr("No training log open. Open a torchtitan, Megatron-LM or nanoGPT log (or one in "
                              "the iteration-block format of the B200 scaling report) to check the MFU it claims."));
        m_findings->clear();
        return;
    }
    const Scenario& scenario = m_scenario->scenario();
    const std::string name = QFileInfo(m_path).fileName().toStdString();
    std::vector<HardwareSpec> known = m_known.empty() ? std::vector { scenario.cluster.hardware } : m_known;
    // The policy every surface follows for a log's recomputed MFU (core/facts/shown_log_mfu.h).
    const ShownLogMfu shown = shownLogMfu(*m_log,
        trace::scenarioLogContext(scenario, static_cast<double>(m_scenario->tokensPerStep()), *m_log, name), known);
    const trace::LogCheck& check = shown.check;

    // Step time when the log has it (Megatron, nanoGPT), else tokens/s (torchtitan). The first kWarmupSteps steps
    // (compilation, allocator warm-up) are left out of the lines, as out of the medians, and marked on their own.
    // A step number that does not grow starts another run in the same file (a restart, or a report quoting several
    // runs): each run is a line of its own, its first step a warm-up, so no line joins steps of different runs.
    constexpr size_t kWarmupSteps = 1; // summarizeLog's default (core/logs/training_log.h)
    struct RunLines {
        QVector<double> steps, time, tokens, claimedSteps, claimed;
    };
    std::vector<RunLines> runs(1);
    QVector<double> warmSteps, warmValues;
    size_t inRun = 0;
    for (size_t i = 0; i < m_log->steps.size(); ++i) {
        const auto& s = m_log->steps[i];
        if (i > 0 && s.step <= m_log->steps[i - 1].step) {
            runs.emplace_back();
            inRun = 0;
        }
        const bool warm = inRun++ < kWarmupSteps && m_log->steps.size() > kWarmupSteps;
        const std::optional<double> value = s.stepSeconds ? s.stepSeconds : s.tokensPerSec;
        if (warm) {
            if (value) {
                warmSteps << static_cast<double>(s.step);
                warmValues << *value;
            }
            continue;
        }
        RunLines& r = runs.back();
        if (s.stepSeconds) {
            r.steps << static_cast<double>(s.step);
            r.time << *s.stepSeconds;
        } else if (s.tokensPerSec) {
            r.steps << static_cast<double>(s.step);
            r.tokens << *s.tokensPerSec;
        }
        if (s.mfu) {
            r.claimedSteps << static_cast<double>(s.step);
            r.claimed << 100.0 * *s.mfu;
        }
    }
    std::erase_if(runs, [](const RunLines& r) { return r.steps.isEmpty() && r.claimedSteps.isEmpty(); });
    const bool severalRuns = runs.size() > 1;
    const auto runName = [&](const QString& series, size_t k) {
        return severalRuns ? tr("%1, run %2").arg(series).arg(k + 1) : series;
    };
    bool anyTime = false, anyTokens = false;
    QVector<double> steps; // every drawn step, for the recomputed MFU's extent
    for (const RunLines& r : runs) {
        anyTime = anyTime || !r.time.isEmpty();
        anyTokens = anyTokens || !r.tokens.isEmpty();
        steps += r.steps;
    }
    const QString warmName = tr("Warm-up (left out)");
    m_throughput->setXAxis(tr("Step"), QString());
    if (anyTime && !anyTokens) {
        m_throughput->setTitle(tr("Step time per step"));
        m_throughput->setYAxis(tr("Step time"), tr("s"));
        for (size_t k = 0; k < runs.size(); ++k)
            if (!runs[k].time.isEmpty())
                addSeries(m_throughput, runName(tr("Step time"), k), runs[k].steps, runs[k].time, tr("s"));
    } else {
        m_throughput->setTitle(tr("Throughput per step"));
        m_throughput->setYAxis(tr("Tokens/s"), m_log->scope == trace::LogScope::PerGpu ? tr("per GPU") : QString());
        for (size_t k = 0; k < runs.size(); ++k)
            if (!runs[k].tokens.isEmpty())
                addSeries(m_throughput, runName(tr("Tokens/s"), k), runs[k].steps, runs[k].tokens, QString());
    }
    if (!warmSteps.isEmpty()) {
        // Apart from the line, as hollow grey circles: left out of the medians, not a misfit of any kind.
        const int warm = m_throughput->addMisfits(warmName, warmSteps, warmValues);
        m_throughput->setSeriesColour(warm, QColor(0x88, 0x88, 0x88));
        m_throughput->setSeriesMarker(warm, Marker::Circle);
    }
    m_throughput->rescale();

    m_mfu->setTitle(tr("Claimed vs recomputed MFU"));
    m_mfu->setXAxis(tr("Step"), QString());
    m_mfu->setYAxis(tr("MFU"), tr("%"));
    for (size_t k = 0; k < runs.size(); ++k)
        if (!runs[k].claimed.isEmpty())
            addSeries(m_mfu, runName(tr("Claimed"), k), runs[k].claimedSteps, runs[k].claimed, tr("%"));
    // A log that ran on another GPU than the scenario's: its recomputed MFU would divide by the wrong peak, so no
    // figure is drawn or stated (shown.withheld); the Trace panel's banner offers the log's GPU. Nor one the diagnosis
    // withholds (another model, or a device memory no such GPU has).
    const std::optional<std::string>& otherGpu = shown.withheld;
    if (const auto mfu = shown.mfu(); mfu && !steps.isEmpty()) {
        const double recomputed = 100.0 * *mfu;
        const double first = *std::min_element(steps.begin(), steps.end());
        const double last = *std::max_element(steps.begin(), steps.end());
        addSeries(m_mfu,
            recomputed > 100 ? tr("Recomputed (median): above 100%, impossible") : tr("Recomputed (median)"),
            { first, last }, { recomputed, recomputed }, tr("%"));
    }
    m_mfu->rescale();

    const trace::LogSummary& s = check.summary;
    const QString scope = m_log->scope == trace::LogScope::PerGpu ? tr(" per GPU") : tr(" (scope not stated)");
    QString summary = tr("<b>%1</b> (%2): %3 steps; medians over %4 after warm-up<br>")
                          .arg(QString::fromStdString(name).toHtmlEscaped(), QString::fromStdString(m_log->format))
                          .arg(m_log->steps.size())
                          .arg(s.stepsUsed);
    summary += tr("Step time: %1<br>Tokens/s: %2%3<br>TFLOPS: %4%3<br>MFU claimed: %5<br>")
                   .arg(figure(s.medianStepSeconds, 1, 3, tr(" s")), figure(s.medianTokensPerSec, 1, 0, QString()),
                       scope, figure(s.medianTflops, 1, 1, QString()), figure(s.medianMfu, 100, 2, tr("%")));
    if (otherGpu) {
        summary += QStringLiteral("<span style=\"color:%1\">").arg(errorColour().name())
            + tr("<b>MFU recomputed: not shown</b>: %1</span>").arg(QString::fromStdString(*otherGpu).toHtmlEscaped());
        m_findings->setText(check.diagnosis ? QString::fromStdString(diagnosisToText(*check.diagnosis)) : QString());
    } else if (check.diagnosis) {
        const RunDiagnosis& run = check.diagnosis->runs.front();
        // Above 100%: the error colour and the reason (no GPU computes above its peak).
        const QString open
            = shown.warning ? QStringLiteral("<span style=\"color:%1\">").arg(errorColour().name()) : QString();
        const QString close = shown.warning
            ? QStringLiteral(": %1</span>").arg(QString::fromStdString(*shown.warning).toHtmlEscaped())
            : QString();
        summary += open
            + tr("<b>MFU recomputed: %1</b> (%2 on %3: %4 tokens/s per GPU x %5 GFLOP/token / %6 TFLOPS dense "
                 "peak)")
                  .arg(QString::fromStdString(run.hasCorrectedMfu() ? formatPercent(run.mfu) : correctedMfuText(run)),
                      QString::fromStdString(scenario.model.displayName()).toHtmlEscaped(),
                      QString::fromStdString(scenario.cluster.hardware.displayName()).toHtmlEscaped(),
                      QString::fromStdString(formatNumber(run.tokensPerSecPerGpu, 0)),
                      QString::fromStdString(formatNumber(run.flopsPerToken / 1e9, 2)),
                      QString::fromStdString(formatNumber(run.peakFlopsPerGpu / 1e12, 0)))
            + close;
        m_findings->setText(QString::fromStdString(diagnosisToText(*check.diagnosis)));
    } else {
        summary += tr("MFU recomputed: not available");
        m_findings->setText(tr("No diagnosis: %1").arg(QString::fromStdString(check.unavailable)));
    }
    m_summary->setText(summary);
}

} // namespace mfu::widgets
