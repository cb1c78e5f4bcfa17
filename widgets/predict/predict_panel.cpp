#include "widgets/predict/predict_panel.h"

#include <algorithm>

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <exception>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/levers.h"
#include "core/number_format.h"
#include "core/scenario/scenario_file.h"
#include "core/units.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/predict/calibration_box.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/predict/lever_table.h"
#include "widgets/predict/parallelism_editor.h"
#include "widgets/predict/planner_table.h"
#include "widgets/predict/predict_charts.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {
QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction)); // the one percent format (core/number_format.h)
}

QLabel* addMetric(QGridLayout* grid, int column, const QString& caption, const char* name)
{
    auto* title = new QLabel(caption);
    auto* value = new QLabel;
    value->setObjectName(QLatin1String(name));
    value->setAccessibleName(caption);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    value->setFont(big);
    // Under the figure, where a measurement of it likely lies (the error band); empty for figures it does not scale.
    auto* band = new QLabel;
    band->setObjectName(QLatin1String(name) + QStringLiteral("Band"));
    band->setAccessibleName(QObject::tr("%1, error band").arg(caption));
    band->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Two rows of three, so the panel stays narrow enough for small windows.
    const int row = 3 * (column / 3);
    grid->addWidget(title, row, column % 3);
    grid->addWidget(value, row + 1, column % 3);
    grid->addWidget(band, row + 2, column % 3);
    return value;
}

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

QLabel* bandLabel(const QLabel* metric)
{
    return metric->parentWidget()->findChild<QLabel*>(metric->objectName() + QStringLiteral("Band"));
}

// The figures of a layout that does not fit are what it would do if it ran: greyed, so they are not read as a
// result.
void setGreyed(QLabel* label, bool greyed)
{
    if (!greyed) {
        label->setPalette(QPalette()); // nothing of its own: it follows the window's palette again
        return;
    }
    QPalette palette; // only the text colour is its own; the rest follows the window's palette
    palette.setColor(QPalette::WindowText, label->palette().color(QPalette::Disabled, QPalette::WindowText));
    label->setPalette(palette);
}
} // namespace

PredictPanel::PredictPanel(ScenarioModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_seqJob(new BackgroundJob(this))
    , m_gpuJob(new BackgroundJob(this))
    , m_precisionJob(new BackgroundJob(this))
    , m_planJob(new BackgroundJob(this))
{
    buildUi();
    for (BackgroundJob* job : { m_seqJob, m_gpuJob, m_precisionJob, m_planJob }) {
        connect(job, &BackgroundJob::progressChanged, this, &PredictPanel::updateProgress);
        connect(job, &BackgroundJob::runningChanged, this, &PredictPanel::updateProgress);
        connect(job, &BackgroundJob::failed, this, [this](int, const QString& message) {
            m_backgroundStatus->setText(tr("Could not compute: %1").arg(message));
        });
    }
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
    right->addWidget(buildSummary());

    m_views = new QTabWidget;
    m_views->setObjectName(QStringLiteral("predictViews"));
    m_waterfall = new ChartView;
    m_waterfall->setObjectName(QStringLiteral("mfuWaterfall"));
    m_memory = new ChartView;
    m_memory->setObjectName(QStringLiteral("memoryBreakdown"));
    auto* breakdown = new QWidget;
    auto* breakdownLayout = new QVBoxLayout(breakdown); // stacked: each chart gets the full width
    breakdownLayout->setContentsMargins(0, 0, 0, 0);
    breakdownLayout->addWidget(m_waterfall, 3);
    breakdownLayout->addWidget(m_memory, 2);
    m_views->addTab(scrolled(breakdown, tr("Breakdown")), tr("&Breakdown"));

    m_seqChart = new ChartView;
    m_seqChart->setObjectName(QStringLiteral("mfuVsSeqLen"));
    m_views->addTab(m_seqChart, tr("&Sequence length"));
    m_gpuChart = new ChartView;
    m_gpuChart->setObjectName(QStringLiteral("mfuVsGpuCount"));
    m_views->addTab(m_gpuChart, tr("&GPU count"));

    m_precisionTflops = new ChartView;
    m_precisionTflops->setObjectName(QStringLiteral("precisionTflops"));
    m_precisionMfu = new ChartView;
    m_precisionMfu->setObjectName(QStringLiteral("precisionMfu"));
    auto* precision = new QWidget;
    auto* precisionLayout = new QVBoxLayout(precision);
    precisionLayout->setContentsMargins(0, 0, 0, 0);
    precisionLayout->addWidget(m_precisionTflops);
    precisionLayout->addWidget(m_precisionMfu);
    m_views->addTab(scrolled(precision, tr("Precision")), tr("P&recision"));
    // Packing, padding and fused kernels: what each lever buys this scenario (core/costmodel/levers.h).
    m_levers = new LeverTable;
    m_views->addTab(m_levers, tr("Le&vers"));
    m_views->addTab(buildPlannerTab(), tr("P&lanner"));
    // Two charts share a tab: each keeps the height its axes, labels and legend need to be read, and a short
    // window scrolls the tab instead of squeezing them (1280x720).
    for (ChartView* chart : { m_seqChart, m_gpuChart })
        chart->setMinimumSize(200, 140);
    for (ChartView* chart : { m_waterfall, m_memory, m_precisionTflops, m_precisionMfu })
        chart->setMinimumSize(200, 280);
    right->addWidget(m_views, 1);
}

QWidget* PredictPanel::buildSummary()
{
    auto* box = new QWidget;
    auto* outer = new QVBoxLayout(box);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* grid = new QGridLayout;
    outer->addLayout(grid);
    m_mfu = addMetric(grid, 0, tr("Predicted MFU"), "predictedMfu");
    m_hfu = addMetric(grid, 1, tr("HFU"), "predictedHfu");
    m_tokens = addMetric(grid, 2, tr("Tokens/s (cluster)"), "tokensPerSec");
    m_tflops = addMetric(grid, 3, tr("TFLOPS per GPU"), "tflopsPerGpu");
    m_stepTime = addMetric(grid, 4, tr("Step time"), "stepTime");
    m_fits = addMetric(grid, 5, tr("Memory per GPU"), "fits");
    m_misfit = new QLabel;
    m_misfit->setObjectName(QStringLiteral("misfitReason"));
    m_misfit->setWordWrap(true);
    m_misfit->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_misfit->setStyleSheet(errorStyleSheet());
    m_misfit->setVisible(false);
    outer->addWidget(m_misfit);
    m_band = new QLabel;
    m_band->setObjectName(QStringLiteral("predictedBand"));
    m_band->setWordWrap(true);
    m_band->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_band->setToolTip(tr("Where a measurement of this configuration likely lies: the 10th to 90th percentile of the "
                          "cost model's error on published runs of the same GPU generation and architecture "
                          "(mfu-explorer validate)"));
    outer->addWidget(m_band);
    m_overPacking = new QLabel;
    m_overPacking->setObjectName(QStringLiteral("predictedMfuOverPackingLength"));
    m_overPacking->setWordWrap(true);
    m_overPacking->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_overPacking->setToolTip(
        tr("PaLM's formula as published counts attention over the whole packed sequence; with "
           "documents masked apart each token attends only within its own document, so that "
           "count inflates FLOP/token and MFU. Predicted MFU above counts attention per document."));
    m_overPacking->setVisible(false);
    outer->addWidget(m_overPacking);
    m_bottleneck = new QLabel;
    m_bottleneck->setObjectName(QStringLiteral("bottleneck"));
    m_bottleneck->setWordWrap(true);
    m_bottleneck->setTextInteractionFlags(Qt::TextSelectableByMouse);
    outer->addWidget(m_bottleneck);

    auto* progressRow = new QHBoxLayout;
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
    progressRow->addWidget(m_backgroundStatus, 1);
    progressRow->addWidget(m_progress);
    progressRow->addWidget(m_cancel);
    outer->addLayout(progressRow);
    m_activity = new Activity([this] { m_cancel->click(); }, this);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        for (BackgroundJob* job : { m_seqJob, m_gpuJob, m_precisionJob, m_planJob })
            job->cancel();
        m_backgroundStatus->setText(tr("Cancelled: the sweeps and the planner show their last finished results."));
    });
    return box;
}

QWidget* PredictPanel::buildPlannerTab()
{
    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    m_planner = new PlannerTableModel(this);
    m_plannerSorted = new QSortFilterProxyModel(this);
    m_plannerSorted->setSourceModel(m_planner);
    m_plannerSorted->setSortRole(PlannerTableModel::SortRole);
    m_plannerTable = new QTableView;
    m_plannerTable->setObjectName(QStringLiteral("plannerTable"));
    m_plannerTable->setAccessibleName(tr("Planner's top configurations"));
    m_plannerTable->setModel(m_plannerSorted);
    m_plannerTable->setSortingEnabled(true);
    m_plannerTable->sortByColumn(PlannerTableModel::Rank, Qt::AscendingOrder);
    m_plannerTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_plannerTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_plannerTable->setWordWrap(false);
    m_plannerTable->verticalHeader()->setVisible(false);
    m_plannerTable->horizontalHeader()->setStretchLastSection(true);
    m_plannerTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_plannerTable->horizontalHeader()->setSectionResizeMode(PlannerTableModel::Reason, QHeaderView::Stretch);
    m_plannerStatus = new QLabel;
    m_plannerStatus->setObjectName(QStringLiteral("plannerStatus"));
    m_plannerStatus->setWordWrap(true);
    m_apply = new QPushButton(tr("&Apply selected configuration"));
    m_apply->setObjectName(QStringLiteral("applyPlan"));
    m_apply->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(m_plannerStatus, 1);
    row->addWidget(m_apply);
    layout->addLayout(row);
    layout->addWidget(m_plannerTable, 1);
    m_plannerReason = new QLabel;
    m_plannerReason->setObjectName(QStringLiteral("plannerReason"));
    m_plannerReason->setWordWrap(true);
    m_plannerReason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_plannerReason);
    m_calibration = new CalibrationBox(m_model);
    layout->addWidget(m_calibration);

    connect(m_plannerTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_apply->setEnabled(m_plannerTable->selectionModel()->hasSelection());
        showPlannerReason();
    });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_plannerTable->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            applyPlannedConfig(rows.front().row());
    });
    connect(m_plannerTable, &QTableView::doubleClicked, this,
        [this](const QModelIndex& index) { applyPlannedConfig(index.row()); });
    return tab;
}

void PredictPanel::recompute()
{
    const Scenario& s = m_model->scenario();
    const QString problem = scenarioProblem(s);
    m_current.reset();
    m_bottleneck->setVisible(true); // a fitting prediction's bottleneck, or why there is none
    if (problem.isEmpty()) {
        try {
            m_current = evaluate(s);
        } catch (const std::exception& e) {
            m_bottleneck->setText(QString::fromUtf8(e.what()));
        }
    } else {
        m_bottleneck->setText(tr("Cannot predict this scenario: %1.").arg(problem));
    }
    m_levers->showLevers(m_current ? leverEffects(s) : std::vector<LeverEffect> {});
    m_overPacking->setVisible(m_current && m_current->mfuPalmOverPackingLength);
    for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime, m_fits })
        bandLabel(l)->clear();
    if (!m_current) {
        for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime, m_fits, m_band })
            l->setText(QStringLiteral("\u2014"));
        for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime, m_fits })
            setGreyed(l, false);
        m_misfit->setVisible(false);
        m_waterfall->clearSeries();
        m_memory->clearSeries();
        return;
    }
    const StepPrediction& p = *m_current;
    const QLocale locale;
    m_mfu->setText(
        percent(p.mfu) + (p.mfuVsFp8Peak ? tr(" (%1 of FP8 peak)").arg(percent(*p.mfuVsFp8Peak)) : QString()));
    m_hfu->setText(percent(p.hfu));
    m_tokens->setText(locale.toString(p.tokensPerSec, 'f', 0));
    m_tokens->setToolTip(tr("%1 tokens/s per GPU").arg(locale.toString(p.tokensPerSecPerGpu, 'f', 0)));
    // How far to trust the figures: the error of published runs like this one (validation table).
    const ErrorBand band = errorBandFor(s, p, m_bands);
    m_band->setText(
        tr("Likely: MFU %1\u2013%2, %3\u2013%4 tokens/s per GPU (error band from %5)")
            .arg(percent(band.mfuLow), percent(band.mfuHigh), locale.toString(band.tokensPerSecPerGpuLow, 'f', 0),
                locale.toString(band.tokensPerSecPerGpuHigh, 'f', 0), QString::fromStdString(band.basis)));
    m_tflops->setText(QString::number(p.tflopsPerGpu, 'f', 0));
    m_stepTime->setText(tr("%1 s").arg(p.stepTimeSeconds, 0, 'f', 3));
    m_fits->setText((p.fits ? tr("fits: %1 of %2 GiB") : tr("does not fit: %1 of %2 GiB"))
                        .arg(p.memory.total() / kGiB, 0, 'f', 1)
                        .arg(p.memoryCapacityBytes / kGiB, 0, 'f', 1));
    m_fits->setStyleSheet(p.fits ? QString() : errorStyleSheet());
    // The band on each figure it scales: a faster measured run has a higher MFU and a shorter step.
    if (p.fits) {
        const QString likely = tr("likely %1\u2013%2");
        bandLabel(m_mfu)->setText(likely.arg(percent(band.mfuLow), percent(band.mfuHigh)));
        bandLabel(m_hfu)->setText(likely.arg(percent(p.hfu * band.lowFactor), percent(p.hfu * band.highFactor)));
        bandLabel(m_tokens)->setText(likely.arg(locale.toString(p.tokensPerSec * band.lowFactor, 'f', 0),
            locale.toString(p.tokensPerSec * band.highFactor, 'f', 0)));
        bandLabel(m_tflops)->setText(likely.arg(QString::number(p.tflopsPerGpu * band.lowFactor, 'f', 0),
            QString::number(p.tflopsPerGpu * band.highFactor, 'f', 0)));
        bandLabel(m_stepTime)
            ->setText(likely.arg(QString::number(p.stepTimeSeconds / band.highFactor, 'f', 3),
                tr("%1 s").arg(p.stepTimeSeconds / band.lowFactor, 0, 'f', 3)));
    }
    for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime })
        setGreyed(l, !p.fits);
    m_misfit->setVisible(!p.fits);
    m_misfit->setText(p.fits ? QString()
                             : tr("This layout does not fit: it needs %1 GiB per GPU and the GPU has %2 GiB, so the "
                                  "greyed figures are what it would do if it ran, not what it can reach. Shard more "
                                  "(FSDP, TP, PP), checkpoint activations or use a smaller micro-batch; the Planner "
                                  "tab searches for layouts that fit.")
                                   .arg(p.memory.total() / kGiB, 0, 'f', 1)
                                   .arg(p.memoryCapacityBytes / kGiB, 0, 'f', 1));
    m_band->setVisible(p.fits);
    // A layout that does not fit: the sentence above says so with what to change; the core's bottleneck sentence
    // would repeat it.
    m_bottleneck->setText(QString::fromStdString(bottleneckSentence(p)));
    m_bottleneck->setVisible(p.fits);
    if (p.mfuPalmOverPackingLength)
        m_overPacking->setText(tr("PaLM as published, attention over the packing length (%1 tokens): %2 MFU, an "
                                  "over-count; per document (above): %3")
                                   .arg(locale.toString(static_cast<qlonglong>(s.workload.seqLen)),
                                       percent(*p.mfuPalmOverPackingLength), percent(p.mfu)));
    showMfuWaterfall(m_waterfall, p);
    showMemory();
}

void PredictPanel::showMemory()
{
    if (m_current)
        showMemoryBreakdown(m_memory, *m_current, m_best ? &*m_best : nullptr);
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
    startSweep(SweepAxis::Precision);
    startPlanner();
}

void PredictPanel::startSweep(SweepAxis axis)
{
    BackgroundJob* job = axis == SweepAxis::SeqLen ? m_seqJob : axis == SweepAxis::GpuCount ? m_gpuJob : m_precisionJob;
    const Scenario s = m_model->scenario();
    SweepOptions options;
    if (axis == SweepAxis::SeqLen)
        options.values = m_seqValues;
    else if (axis == SweepAxis::GpuCount)
        options.values = m_gpuValues;
    job->start<SweepResult>(
        [s, axis, options, bands = m_bands](JobControl& control) mutable {
            // Each point's own error band (its sequence range, its GPU count's tier), from a copy of the residuals
            // this job owns.
            options.errorBands = &bands;
            return runSweep(
                s, axis, options, [&control](double f) { control.setProgress(f); }, &control.cancel);
        },
        [this, s, axis](SweepResult& r) {
            if (axis == SweepAxis::Precision) {
                showPrecisionTflops(m_precisionTflops, r);
                showPrecisionMfu(m_precisionMfu, r, s);
            } else {
                const ErrorBand band = errorBandFor(s, StepPrediction {}, m_bands);
                // The scenario's own point, wherever it falls on the axis (one evaluation: microseconds).
                std::optional<StepPrediction> own;
                if (scenarioProblem(s).isEmpty()) {
                    try {
                        own = evaluate(s);
                    } catch (const std::exception&) {
                        own.reset(); // drawn as "cannot be laid out"
                    }
                }
                showMfuSweep(axis == SweepAxis::SeqLen ? m_seqChart : m_gpuChart, r, s, &band, own ? &*own : nullptr);
            }
        });
}

void PredictPanel::startPlanner()
{
    const Scenario s = m_model->scenario();
    // Layouts within the error band of the fastest are ties; the simpler one ranks first.
    PlannerOptions options;
    options.tieTolerance = 1.0 - errorBandFor(s, StepPrediction {}, m_bands).lowFactor;
    m_planJob->start<PlanResult>(
        [s, options](JobControl& control) {
            return planConfigurations(
                s, options, [&control](double f) { control.setProgress(f); }, &control.cancel);
        },
        [this](PlanResult& r) {
            m_planner->setPlan(r);
            m_best.reset();
            if (!r.configs.empty())
                m_best = r.configs.front();
            m_calibration->setBestConfig(m_best);
            m_apply->setEnabled(m_plannerTable->selectionModel()->hasSelection());
            m_plannerStatus->setText(
                tr("%L1 configurations evaluated, %L2 fit, in %3 s, at a global batch of %L4 tokens. %5")
                    .arg(r.evaluated)
                    .arg(r.fitting)
                    .arg(r.seconds, 0, 'f', 2)
                    .arg(r.globalBatchTokens)
                    .arg(r.configs.empty() ? QString::fromStdString(whyNothingPlanned(r)) + QLatin1Char('.')
                                           : tr("Select a row and Apply it, or double-click it.")));
            showMemory();
            showPlannerReason();
        });
}

void PredictPanel::showPlannerReason()
{
    const QModelIndexList rows = m_plannerTable->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? 0 : rows.front().row();
    const QModelIndex reason = m_plannerSorted->index(row, PlannerTableModel::Reason);
    m_plannerReason->setText(reason.isValid()
            ? tr("Why #%1 ranks here: %2")
                  .arg(m_plannerSorted->index(row, PlannerTableModel::Rank).data().toInt())
                  .arg(reason.data().toString())
            : QString());
}

void PredictPanel::updateProgress()
{
    double sum = 0;
    int running = 0;
    for (BackgroundJob* job : { m_seqJob, m_gpuJob, m_precisionJob, m_planJob })
        if (job->isRunning()) {
            sum += job->progress();
            ++running;
        }
    m_progress->setVisible(running > 0);
    m_cancel->setVisible(running > 0);
    m_activity->update(tr("Sweeps and planner"), running > 0, running > 0 ? sum / running : 0.0);
    if (running > 0) {
        m_progress->setValue(static_cast<int>(100.0 * sum / running));
    } else if (m_backgroundStatus->text() == tr("Updating the sweeps and the planner...")) {
        m_backgroundStatus->setText(tr("Sweeps and planner are up to date."));
    }
}

bool PredictPanel::isComputing() const
{
    return m_seqJob->isRunning() || m_gpuJob->isRunning() || m_precisionJob->isRunning() || m_planJob->isRunning();
}

void PredictPanel::setErrorBandModel(ErrorBandModel model)
{
    m_bands = std::move(model);
    recompute();
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
    startSweep(axis);
}

bool PredictPanel::applyPlannedConfig(int viewRow)
{
    const QModelIndex source = m_plannerSorted->mapToSource(m_plannerSorted->index(viewRow, 0));
    if (!source.isValid())
        return false;
    const PlannedConfig& c = m_planner->config(source.row());
    m_model->setConfiguration(c.parallelism, c.activationCheckpointing, m_model->scenario().flags, c.microBatch);
    m_backgroundStatus->setText(tr("Applied: %1.").arg(QString::fromStdString(describeConfig(c))));
    return true;
}

} // namespace mfu::widgets
