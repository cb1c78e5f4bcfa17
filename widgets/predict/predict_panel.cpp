#include "widgets/predict/predict_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <exception>

#include <nlohmann/json.hpp>

#include "core/calibration/calibration_text.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/levers.h"
#include "core/scenario/scenario_file.h"
#include "widgets/charts/chart_view.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/predict/lever_table.h"
#include "widgets/predict/parallelism_editor.h"
#include "widgets/predict/planner_page.h"
#include "widgets/predict/predict_charts.h"
#include "widgets/predict/predict_summary.h"
#include "widgets/predict/sweep_run.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

// A tab of stacked charts that scrolls vertically when the window is short, and never sideways.
QScrollArea* scrolled(QWidget* page, const QString& name)
{
    auto* scroll = new QScrollArea;
    scroll->setAccessibleName(name);
    scroll->setWidget(page);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

ChartView* namedChart(const char* name)
{
    auto* chart = new ChartView;
    chart->setObjectName(QLatin1String(name));
    return chart;
}

// Charts stacked in one page, each with the full width.
QWidget* stacked(std::initializer_list<std::pair<ChartView*, int>> charts)
{
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    for (const auto& [chart, stretch] : charts)
        layout->addWidget(chart, stretch);
    return page;
}

} // namespace

PredictPanel::PredictPanel(ScenarioModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
{
    buildUi();
    for (BackgroundJob* job : jobs()) {
        connect(job, &BackgroundJob::progressChanged, this, &PredictPanel::updateProgress);
        connect(job, &BackgroundJob::runningChanged, this, &PredictPanel::updateProgress);
        connect(job, &BackgroundJob::failed, this, [this](int, const QString& message) {
            m_backgroundStatus->setText(tr("Could not compute: %1").arg(message));
        });
    }
    connect(m_plannerPage, &PlannerPage::planShown, this, &PredictPanel::showMemory);
    // A calibration set or dropped in the Trace panel: the headline again, with or without its calibrated row, and
    // the line sweeps with or without their calibrated line (the planner's ranking stays the validated model's).
    connect(m_model, &ScenarioModel::traceCalibrationChanged, this, [this] {
        recompute();
        m_backgroundStatus->setText(tr("Updating the sweeps and the planner..."));
        for (const SweepAxis axis : { SweepAxis::SeqLen, SweepAxis::GpuCount, SweepAxis::Network })
            startSweep(axis);
    });
    connect(m_summary, &PredictSummary::forgetCalibration, this,
        [this] { m_model->setTraceCalibration(std::nullopt, {}); });
    connect(m_plannerPage, &PlannerPage::applied, this,
        [this](const QString& description) { m_backgroundStatus->setText(tr("Applied: %1.").arg(description)); });
    connect(m_model, &ScenarioModel::changed, this, [this] {
        recompute();
        // Several setters may fire in one go (a loaded file, Apply): restart the background work once.
        if (!m_restartQueued) {
            m_restartQueued = true;
            QTimer::singleShot(0, this, &PredictPanel::restartBackground);
        }
    });
    recompute();
    restartBackground();
}

PredictPanel::~PredictPanel() = default;

void PredictPanel::buildUi()
{
    auto* layout = new QHBoxLayout(this);
    m_editor = new ParallelismEditor(m_model);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_editor);
    scroll->setWidgetResizable(true);
    scroll->setAccessibleName(tr("Parallelism inputs"));
    // As wide as the editor needs and no wider (the charts get the rest); narrower windows scroll it.
    // (The vertical scroll bar and the frame: what the viewport needs beside the editor.)
    const int chrome = scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * scroll->frameWidth() + 2;
    scroll->setMaximumWidth(m_editor->minimumSizeHint().width() + 28);
    // Never narrower than the editor: a clipped check box or field reads as a different setting (the charts on the
    // right shrink first).
    scroll->setMinimumWidth(m_editor->minimumSizeHint().width() + chrome);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    layout->addWidget(scroll);

    auto* right = new QVBoxLayout;
    layout->addLayout(right, 1);
    m_summary = new PredictSummary;
    right->addWidget(m_summary);
    right->addWidget(buildProgressRow());

    m_views = new QTabWidget;
    m_views->setObjectName(QStringLiteral("predictViews"));
    m_waterfall = namedChart("mfuWaterfall");
    m_memory = namedChart("memoryBreakdown");
    m_views->addTab(scrolled(stacked({ { m_waterfall, 3 }, { m_memory, 2 } }), tr("Breakdown")), tr("&Breakdown"));
    m_seqChart = namedChart("mfuVsSeqLen");
    m_views->addTab(m_seqChart, tr("&Sequence"));
    m_gpuChart = namedChart("mfuVsGpuCount");
    m_views->addTab(m_gpuChart, tr("&GPUs"));
    // What a faster or slower fabric buys this run: 400G against 800G NICs, before they are bought.
    m_networkChart = namedChart("mfuVsNetwork");
    m_views->addTab(m_networkChart, tr("&Network"));
    m_precisionTflops = namedChart("precisionTflops");
    m_precisionMfu = namedChart("precisionMfu");
    m_views->addTab(
        scrolled(stacked({ { m_precisionTflops, 0 }, { m_precisionMfu, 0 } }), tr("Precision")), tr("P&recision"));
    m_seqSweep = new SweepRun(SweepAxis::SeqLen, m_seqChart, nullptr, this);
    m_gpuSweep = new SweepRun(SweepAxis::GpuCount, m_gpuChart, nullptr, this);
    m_networkSweep = new SweepRun(SweepAxis::Network, m_networkChart, nullptr, this);
    m_precisionSweep = new SweepRun(SweepAxis::Precision, m_precisionTflops, m_precisionMfu, this);
    // Packing, padding and fused kernels: what each lever buys this scenario (core/costmodel/levers.h).
    m_levers = new LeverTable;
    m_views->addTab(m_levers, tr("Le&vers"));
    m_plannerPage = new PlannerPage(m_model);
    m_views->addTab(scrolled(m_plannerPage, tr("Planner")), tr("P&lanner"));
    // Two charts share a tab: each keeps the height its axes, labels and legend need to be read, and a short
    // window scrolls the tab instead of squeezing them (1280x720).
    for (ChartView* chart : { m_seqChart, m_gpuChart, m_networkChart })
        chart->setMinimumSize(200, 140);
    for (ChartView* chart : { m_waterfall, m_memory, m_precisionTflops, m_precisionMfu })
        chart->setMinimumSize(200, 280);
    right->addWidget(m_views, 1);
}

QWidget* PredictPanel::buildProgressRow()
{
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    m_backgroundStatus = new QLabel;
    m_backgroundStatus->setObjectName(QStringLiteral("backgroundStatus"));
    m_backgroundStatus->setWordWrap(true); // an error can be long; it wraps instead of widening the panel
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("backgroundProgress"));
    m_progress->setAccessibleName(tr("Progress of the sweeps and the planner"));
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(200);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelBackground"));
    m_cancel->setAccessibleName(tr("Cancel the sweeps and the planner"));
    layout->addWidget(m_backgroundStatus, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    m_activity = new Activity([this] { m_cancel->click(); }, this);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        for (BackgroundJob* job : jobs())
            job->cancel();
        m_backgroundStatus->setText(tr("Cancelled: each sweep and the planner say what they show."));
    });
    return row;
}

std::vector<BackgroundJob*> PredictPanel::jobs() const
{
    return { m_seqSweep->job(), m_gpuSweep->job(), m_networkSweep->job(), m_precisionSweep->job(),
        m_plannerPage->job() };
}

PlannerTableModel* PredictPanel::plannerModel() const
{
    return m_plannerPage->plannerModel();
}

QSortFilterProxyModel* PredictPanel::plannerView() const
{
    return m_plannerPage->plannerView();
}

QTableView* PredictPanel::plannerTable() const
{
    return m_plannerPage->table();
}

CalibrationBox* PredictPanel::calibration() const
{
    return m_plannerPage->calibration();
}

void PredictPanel::recompute()
{
    const Scenario& s = m_model->scenario();
    const QString problem = scenarioProblem(s);
    m_current.reset();
    QString reason;
    if (problem.isEmpty()) {
        try {
            m_current = evaluate(s);
        } catch (const std::exception& e) {
            reason = QString::fromUtf8(e.what());
        }
    } else {
        reason = tr("Cannot predict this scenario: %1.").arg(problem);
    }
    m_levers->showLevers(m_current ? leverEffects(s) : std::vector<LeverEffect> {});
    if (!m_current) {
        m_summary->showNoPrediction(reason);
        m_waterfall->clearSeries();
        m_memory->clearSeries();
        return;
    }
    // How far to trust the figures: the error of published runs like this one (validation table), every end capped
    // where the GPU stops.
    const ErrorBand band = errorBandFor(s, *m_current, m_bands);
    m_summary->showPrediction(s, *m_current, band);
    showCalibrated(band);
    showMfuWaterfall(m_waterfall, *m_current);
    showMemory();
}

void PredictPanel::showCalibrated(const ErrorBand& band)
{
    const auto& calibration = m_model->traceCalibration();
    if (!calibration || !m_current) {
        m_summary->showCalibrated({}, {});
        return;
    }
    const QString source = m_model->traceCalibrationSource();
    try {
        const CalibratedPrediction p = calibratedPrediction(
            m_model->scenario(), *calibration, *m_current, relativeStepBandHalfWidth(band, *m_current));
        QStringList terms;
        for (const std::string& line : calibratedTermLines(p))
            terms << QString::fromStdString(line);
        m_summary->showCalibrated(tr("Calibrated to %1: %2; rests on %3.")
                                      .arg(source, QString::fromStdString(calibratedFiguresText(p)),
                                          QString::fromStdString(calibratedBasisText(p))),
            terms.join(QLatin1Char('\n')));
    } catch (const std::exception& e) {
        m_summary->showCalibrated(
            tr("Calibrated to %1: not for this scenario: %2").arg(source, QString::fromUtf8(e.what())), {});
    }
}

void PredictPanel::showMemory()
{
    if (m_current) {
        const auto& best = m_plannerPage->best();
        showMemoryBreakdown(m_memory, *m_current, best ? &*best : nullptr);
    }
}

void PredictPanel::restartBackground()
{
    m_restartQueued = false;
    // Only what the sweeps and the planner read: not the price, the cost inputs or the measured throughput (the
    // Calculator's), so a price edit leaves the finished sweeps and plan standing instead of recomputing them.
    Scenario inputs = m_model->scenario();
    inputs.pricePerGpuHourUsd.reset();
    inputs.cost = CostInputs {};
    inputs.measuredThroughput.reset();
    ScenarioDocument document;
    document.scenario = inputs;
    std::string key = scenarioToJson(document).dump();
    if (key == m_backgroundInputs)
        return;
    m_backgroundInputs = std::move(key);
    m_backgroundStatus->setText(tr("Updating the sweeps and the planner..."));
    startSweep(SweepAxis::SeqLen);
    startSweep(SweepAxis::GpuCount);
    startSweep(SweepAxis::Network);
    startSweep(SweepAxis::Precision);
    // Layouts within the error band of the fastest are ties; the simpler one ranks first.
    const Scenario& s = m_model->scenario();
    m_plannerPage->start(s, plannerTieTolerance(s, m_bands));
    showMemory(); // without the last scenario's best, until the plan is shown
}

void PredictPanel::startSweep(SweepAxis axis)
{
    const Scenario& s = m_model->scenario();
    switch (axis) {
    case SweepAxis::SeqLen:
        m_seqSweep->start(s, m_seqValues, m_bands, m_model->traceCalibration());
        break;
    case SweepAxis::GpuCount:
        m_gpuSweep->start(s, m_gpuValues, m_bands, m_model->traceCalibration());
        break;
    case SweepAxis::Network:
        m_networkSweep->start(s, m_networkValues, m_bands, m_model->traceCalibration());
        break;
    case SweepAxis::Precision:
        m_precisionSweep->start(s, {}, m_bands); // the core's points: an FP4 run's own precision among them
        break;
    }
}

void PredictPanel::updateProgress()
{
    // The batch's progress: a job that is done counts as done. Averaged over the running jobs alone, it fell each
    // time one finished ahead of the others (35% -> 23% -> 0%).
    double sum = 0;
    int running = 0;
    const std::vector<BackgroundJob*> all = jobs();
    for (BackgroundJob* job : all) {
        sum += job->isRunning() ? job->progress() : 1.0;
        running += job->isRunning() ? 1 : 0;
    }
    const double done = all.empty() ? 0.0 : sum / static_cast<double>(all.size());
    m_progress->setVisible(running > 0);
    m_cancel->setVisible(running > 0);
    m_activity->update(tr("Sweeps and planner"), running > 0, running > 0 ? done : 0.0);
    if (running > 0) {
        m_progress->setValue(static_cast<int>(100.0 * done));
    } else if (m_backgroundStatus->text() == tr("Updating the sweeps and the planner...")) {
        m_backgroundStatus->setText(tr("Sweeps and planner are up to date."));
    }
}

bool PredictPanel::headlineCurrent() const
{
    return true; // recompute() runs on every change, before the change returns
}

bool PredictPanel::isComputing() const
{
    for (BackgroundJob* job : jobs())
        if (job->isRunning())
            return true;
    return false;
}

void PredictPanel::setErrorBandModel(ErrorBandModel model)
{
    m_bands = std::move(model);
    recompute();
    m_backgroundInputs.clear(); // the same scenario, other bands: the sweeps' points are banded anew
    if (!m_restartQueued) { // the sweeps and the planner pick the bands up once
        m_restartQueued = true;
        QTimer::singleShot(0, this, &PredictPanel::restartBackground);
    }
}

void PredictPanel::setSweepValues(SweepAxis axis, std::vector<double> values)
{
    if (axis == SweepAxis::SeqLen)
        m_seqValues = std::move(values);
    else if (axis == SweepAxis::GpuCount)
        m_gpuValues = std::move(values);
    else if (axis == SweepAxis::Network)
        m_networkValues = std::move(values);
    startSweep(axis);
}

bool PredictPanel::applyPlannedConfig(int viewRow)
{
    return m_plannerPage->apply(viewRow);
}

} // namespace mfu::widgets
