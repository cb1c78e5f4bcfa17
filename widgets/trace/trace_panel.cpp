#include "widgets/trace/trace_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <fstream>

#include "core/errors.h"
#include "core/logs/training_log.h"
#include "core/scenario/file_facts.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/byte_source.h"
#include "core/trace/cross_rank.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/trace/busy_heat_map.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/facts_banner.h"
#include "widgets/trace/kernel_diff_model.h"
#include "widgets/trace/rank_progress.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/straggler_view.h"
#include "widgets/trace/timeline_view.h"
#include "widgets/trace/top_kernels_model.h"
#include "widgets/trace/trace_charts.h"
#include "widgets/trace/trace_import.h"
#include "widgets/trace/training_log_view.h"

namespace mfu::widgets {

namespace {

QString fileNames(const QStringList& paths)
{
    QStringList names;
    for (const QString& p : paths)
        names << QFileInfo(p).fileName();
    return names.join(QStringLiteral(", "));
}

bool isTrainingLog(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(256 * 1024);
    return trace::looksLikeTrainingLog(std::string_view(head.constData(), static_cast<size_t>(head.size())));
}

} // namespace

TracePanel::TracePanel(ScenarioModel* scenario, QWidget* parent)
    : QWidget(parent)
    , m_scenario(scenario)
    , m_runJob(new BackgroundJob(this))
    , m_baselineJob(new BackgroundJob(this))
    , m_logJob(new BackgroundJob(this))
    , m_kernels(new TopKernelsModel(this))
    , m_diff(new KernelDiffModel(this))
    , m_kernelProxy(new QSortFilterProxyModel(this))
    , m_ranks(new QStandardItemModel(this))
{
    try {
        m_rules = std::make_unique<trace::KernelRules>(trace::builtInKernelRules());
    } catch (const std::exception& e) {
        m_rulesError = QString::fromUtf8(e.what());
    }

    auto* open = new QPushButton(tr("Open trace..."));
    open->setObjectName(QStringLiteral("openTrace"));
    open->setToolTip(
        tr("Kineto/PyTorch profiler traces (.json, .json.gz); select one file per rank for a multi-rank run"));
    connect(open, &QPushButton::clicked, this, &TracePanel::chooseTraces);
    auto* openBase = new QPushButton(tr("Open baseline for comparison..."));
    openBase->setObjectName(QStringLiteral("openBaseline"));
    connect(openBase, &QPushButton::clicked, this, &TracePanel::chooseBaseline);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("Importing %p%"));
    m_progress->setAccessibleName(tr("Import progress"));
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelImport"));
    m_cancel->setVisible(false);
    connect(m_cancel, &QPushButton::clicked, this, &TracePanel::cancelImport);
    m_rankProgress = new RankProgressView;
    m_rankProgress->setObjectName(QStringLiteral("rankProgress"));
    m_rankProgress->setVisible(false);
    m_rank = new QComboBox;
    m_rank->setAccessibleName(tr("Rank"));
    // File names are long: a combo sized to them would widen the whole tab widget and squeeze the scenario dock.
    m_rank->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_rank->setMinimumContentsLength(16);
    connect(m_rank, &QComboBox::currentIndexChanged, this, &TracePanel::showRank);
    m_unit = new QComboBox;
    m_unit->setAccessibleName(tr("Breakdown unit"));
    m_unit->addItems({ tr("Share of step (%)"), tr("Time per step (ms)") });
    connect(m_unit, &QComboBox::currentIndexChanged, this, &TracePanel::showRank);

    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(open);
    toolbar->addWidget(openBase);
    toolbar->addWidget(m_progress, 1);
    toolbar->addWidget(m_cancel);
    toolbar->addStretch();
    toolbar->addWidget(new QLabel(tr("Rank:")));
    toolbar->addWidget(m_rank);
    toolbar->addWidget(new QLabel(tr("Bars:")));
    toolbar->addWidget(m_unit);

    m_source = new QLabel(tr("No trace open. Open a PyTorch profiler trace (Kineto JSON, plain or gzip), "
                             "several per-rank files, or drop them on the window."));
    m_source->setObjectName(QStringLiteral("traceSource"));
    m_source->setWordWrap(true);
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("traceError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setVisible(false);

    m_banner = new FactsBanner(m_scenario);

    m_stragglers = new StragglerView;
    m_stragglers->setObjectName(QStringLiteral("stragglers"));
    m_heatMap = new BusyHeatMap;
    m_heatMap->setObjectName(QStringLiteral("busyHeatMap"));
    m_views = new QTabWidget;
    m_views->addTab(buildOverview(), tr("Breakdown"));
    m_views->addTab(buildTimeline(), tr("Timeline"));
    m_views->addTab(buildKernels(), tr("Top kernels"));
    m_views->addTab(buildRanks(), tr("Ranks"));
    m_views->addTab(m_stragglers, tr("Stragglers"));
    m_views->addTab(m_heatMap, tr("Busy by step"));
    m_logView = new TrainingLogView(m_scenario);
    m_views->addTab(m_logView, tr("Training log"));
    connect(m_views, &QTabWidget::currentChanged, this, [this] { showFactsOfCurrentView(); });
    connect(m_logView, &TrainingLogView::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open training log"), QString(), tr("Training logs (*.log *.txt *.out);;All files (*)"));
        if (!path.isEmpty())
            openTrainingLog(path);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    layout->addWidget(m_rankProgress);
    layout->addWidget(m_source);
    layout->addWidget(m_error);
    layout->addWidget(m_banner);
    layout->addWidget(m_views, 1);

    m_activity = new Activity([this] { cancelImport(); }, this);
    // One place shows the import state: the panel's own bar and Cancel, and the Activity the status bar mirrors.
    // Either names what is being read: a training log alone, else traces.
    const auto showImportState = [this] {
        const bool busy = isImporting();
        const bool logOnly = m_logJob->isRunning() && !m_runJob->isRunning() && !m_baselineJob->isRunning();
        m_progress->setFormat(logOnly ? tr("Reading the training log %p%") : tr("Importing %p%"));
        m_progress->setVisible(busy);
        m_cancel->setVisible(busy);
        m_rankProgress->setVisible(busy && m_rankProgress->isActive());
        m_activity->update(
            logOnly ? tr("Reading the training log") : tr("Importing the trace"), busy, m_progress->value() / 1000.0);
    };
    for (BackgroundJob* job : { m_runJob, m_baselineJob, m_logJob }) {
        connect(job, &BackgroundJob::progressChanged, this, [this, showImportState](double f) {
            m_progress->setValue(static_cast<int>(f * 1000));
            m_rankProgress->refresh();
            showImportState();
        });
        connect(job, &BackgroundJob::runningChanged, this, showImportState);
        connect(job, &BackgroundJob::failed, this,
            [this, job](int, const QString& message) { showError(message, job == m_logJob); });
        connect(job, &BackgroundJob::cancelled, this, [this, job] {
            emit statusMessage(job == m_logJob
                    ? tr("Reading the training log cancelled; the previous log is still shown.")
                    : tr("Trace import cancelled; the previous trace is still shown."));
        });
    }
    connect(m_scenario, &ScenarioModel::changed, this, &TracePanel::updateMfu);
    showRun();
}

TracePanel::~TracePanel() = default;

QString TracePanel::traceFileFilter()
{
    // Translated when asked, not at static initialisation (before any translator is installed).
    return tr("Profiler traces (*.json *.json.gz *.sqlite);;Training logs (*.log *.txt *.out);;All files (*)");
}

QWidget* TracePanel::buildOverview()
{
    auto* figures = new QGroupBox(tr("Figures (selected rank, per analysed step)"));
    auto* form = new QFormLayout(figures);
    m_steps = addFigure(form, tr("Steps:"), "steps");
    m_stepTime = addFigure(form, tr("Step time:"), "stepTime");
    m_busy = addFigure(form, tr("GPU busy:"), "busy");
    m_idle = addFigure(form, tr("GPU idle:"), "idle");
    m_comm = addFigure(form, tr("Communication:"), "comm");
    m_overlap = addFigure(form, tr("Comm. hidden under compute:"), "overlap");
    m_exposed = addFigure(form, tr("Exposed communication:"), "exposedComm");
    m_kernelCount = addFigure(form, tr("Kernels:"), "kernelCount");
    m_gpu = addFigure(form, tr("GPU:"), "gpu");
    m_measuredMfu = addFigure(form, tr("Measured MFU:"), "measuredMfu");
    m_predictedMfu = addFigure(form, tr("Predicted MFU (cost model):"), "predictedMfu");
    m_mfuNote = new QLabel;
    m_mfuNote->setObjectName(QStringLiteral("mfuNote"));
    m_mfuNote->setWordWrap(true);
    form->addRow(m_mfuNote);

    m_stepChart = new ChartView;
    m_stepChart->setObjectName(QStringLiteral("stepChart"));
    m_stepChart->setAccessibleName(tr("Step time by kernel category"));
    m_comparisonChart = new ChartView;
    m_comparisonChart->setObjectName(QStringLiteral("comparisonChart"));
    m_comparisonChart->setAccessibleName(tr("Baseline vs optimised"));

    m_comparisonHint = new QLabel(tr("Open a baseline for comparison to see its category shares beside this run's, "
                                     "with the change in percentage points (as in Figure 3 of Lambda's MFU paper)."));
    m_comparisonHint->setObjectName(QStringLiteral("comparisonHint"));
    m_comparisonHint->setWordWrap(true);
    m_comparisonHint->setAlignment(Qt::AlignCenter);
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(m_stepChart);
    charts->addWidget(m_comparisonChart);
    charts->addWidget(m_comparisonHint);
    for (int i = 0; i < 3; ++i)
        charts->setStretchFactor(i, 1);
    // The figures are sentences: at 1280x720 they need more height than the tab has, so they scroll instead of
    // being squeezed into clipped rows.
    auto* figuresScroll = new QScrollArea;
    figuresScroll->setObjectName(QStringLiteral("figuresScroll"));
    figuresScroll->setAccessibleName(tr("Figures of the selected rank"));
    figuresScroll->setWidget(figures);
    figuresScroll->setWidgetResizable(true);
    figuresScroll->setFrameShape(QFrame::NoFrame);
    figuresScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(figuresScroll);
    split->addWidget(charts);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({ 380, 620 }); // the figures are sentences: give them room to read
    return split;
}

QWidget* TracePanel::buildTimeline()
{
    m_timeline = new TimelineView;
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timelineRanks = new QComboBox;
    m_timelineRanks->setObjectName(QStringLiteral("timelineRanks"));
    m_timelineRanks->setAccessibleName(tr("Ranks on the timeline"));
    m_timelineRanks->addItems({ tr("The selected rank"), tr("Every rank, on one clock") });
    connect(m_timelineRanks, &QComboBox::currentIndexChanged, this, &TracePanel::updateTimeline);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:")));
    bar->addWidget(m_timelineRanks);
    bar->addStretch();
    m_timelineTab = new QWidget;
    auto* layout = new QVBoxLayout(m_timelineTab);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_timeline, 1);
    return m_timelineTab;
}

QWidget* TracePanel::buildKernels()
{
    m_kernelProxy->setSourceModel(m_kernels);
    m_kernelProxy->setSortRole(TopKernelsModel::SortRole);
    m_kernelProxy->setFilterKeyColumn(-1); // name and category
    m_kernelProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("kernelFilter"));
    m_filter->setAccessibleName(tr("Filter the top kernels"));
    m_filter->setPlaceholderText(tr("Filter kernels by name or category (e.g. gemm, nccl, flash)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_kernelProxy, &QSortFilterProxyModel::setFilterFixedString);
    m_kernelView = new QTableView;
    m_kernelView->setObjectName(QStringLiteral("kernelTable"));
    m_kernelView->setAccessibleName(tr("Top kernels"));
    m_kernelView->setModel(m_kernelProxy);
    m_kernelView->setSortingEnabled(true);
    m_kernelView->sortByColumn(TopKernelsModel::TotalMs, Qt::DescendingOrder);
    m_kernelView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_kernelView->setWordWrap(false);
    m_kernelView->verticalHeader()->setVisible(false);
    // The name takes what the numbers leave; numbers and categories are never elided.
    m_kernelView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_kernelView->horizontalHeader()->setSectionResizeMode(TopKernelsModel::Name, QHeaderView::Stretch);
    auto* copy = new QShortcut(QKeySequence::Copy, m_kernelView, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(copy, &QShortcut::activated, this, &TracePanel::copySelectedKernels);
    auto* hint = new QLabel(tr("Click a header to sort; Ctrl+C copies the selected rows (all rows when none is "
                               "selected) as tab-separated text."));
    hint->setWordWrap(true);
    m_kernelNote = new QLabel;
    m_kernelNote->setObjectName(QStringLiteral("kernelTableNote"));
    m_kernelNote->setWordWrap(true);
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(m_kernelNote);
    layout->addWidget(m_filter);
    layout->addWidget(m_kernelView, 1);
    layout->addWidget(hint);
    return box;
}

QWidget* TracePanel::buildRanks()
{
    auto* view = new QTableView;
    view->setObjectName(QStringLiteral("rankTable"));
    view->setAccessibleName(tr("Per-rank step time"));
    view->setModel(m_ranks);
    view->verticalHeader()->setVisible(false);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_slowest = new QLabel;
    m_slowest->setObjectName(QStringLiteral("slowestRank"));
    m_slowest->setWordWrap(true);
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(m_slowest);
    layout->addWidget(view, 1);
    return box;
}

QLabel* TracePanel::addFigure(QFormLayout* form, const QString& label, const char* objectName)
{
    auto* value = new QLabel(QStringLiteral("–"));
    value->setObjectName(QLatin1String(objectName));
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    form->addRow(label, value);
    return value;
}

void TracePanel::chooseTraces()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open trace"), QString(), traceFileFilter());
    if (paths.size() == 1 && isTrainingLog(paths.first()))
        openTrainingLog(paths.first());
    else if (!paths.isEmpty())
        openTraces(paths);
}

void TracePanel::chooseRankFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open folder of ranks"));
    if (!folder.isEmpty())
        openRankFolder(folder);
}

void TracePanel::openRankFolder(const QString& folder)
{
    startImport({ folder }, false);
}

void TracePanel::chooseBaseline()
{
    const QStringList paths
        = QFileDialog::getOpenFileNames(this, tr("Open baseline for comparison"), QString(), traceFileFilter());
    if (!paths.isEmpty())
        openBaseline(paths);
}

void TracePanel::openTraces(const QStringList& paths)
{
    startImport(paths, false);
}

void TracePanel::openBaseline(const QStringList& paths)
{
    startImport(paths, true);
}

void TracePanel::startImport(const QStringList& paths, bool baseline)
{
    if (paths.isEmpty())
        return;
    if (!m_rules) {
        showError(m_rulesError);
        return;
    }
    // The ranks are known before reading (a directory listing), so each gets its progress cell from the start.
    RunFiles files;
    try {
        files = runFiles(paths);
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return;
    }
    m_error->setVisible(false);
    emit statusMessage(tr("Importing %1...").arg(fileNames(paths)));
    const trace::KernelRules rules = *m_rules; // the worker gets its own copy: nothing shared with the GUI thread
    QStringList names;
    for (const auto& f : files.files)
        names << QString::fromStdString(f.filename().string());
    auto progress = std::make_shared<RankProgress>(names);
    m_rankProgress->setProgress(files.files.size() > 1 ? progress : nullptr);
    BackgroundJob* job = baseline ? m_baselineJob : m_runJob;
    job->start<std::shared_ptr<const TraceRun>>(
        [paths, files, rules, progress](JobControl& control) {
            return std::make_shared<const TraceRun>(files.summaries
                    ? importSummaryRun(paths, files.files, control, progress.get())
                    : importTraceRun(paths, files.files, rules, control, progress.get()));
        },
        [this, baseline](std::shared_ptr<const TraceRun>& result) {
            (baseline ? m_baseline : m_run) = result;
            if (!baseline)
                m_traceFacts = factsFromTrace(result->analysis);
            showRun();
            showFactsOfCurrentView();
            emit statusMessage(tr("Imported %1.").arg(fileNames(result->paths)));
            emit imported();
        });
}

bool TracePanel::openTrainingLog(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showError(tr("cannot read %1: %2").arg(path, file.errorString()), true);
        return false;
    }
    file.close();
    m_error->setVisible(false);
    const QString shown = QFileInfo(path).fileName();
    emit statusMessage(tr("Reading the training log %1...").arg(shown));
    const std::string local = QFile::encodeName(path).toStdString();
    const std::string name = shown.toStdString();
    m_logJob->start<std::shared_ptr<const trace::TrainingLog>>(
        [local, name](JobControl& control) {
            std::ifstream in(local, std::ios::binary);
            if (!in)
                throw InputError(name + ": cannot be read");
            trace::ReadControl read;
            read.cancel = &control.cancel;
            read.onProgress = [&control](uint64_t done, uint64_t total) {
                if (total > 0)
                    control.setProgress(static_cast<double>(done) / static_cast<double>(total));
            };
            return std::make_shared<const trace::TrainingLog>(trace::parseTrainingLog(in, name, {}, read));
        },
        [this, path, shown](std::shared_ptr<const trace::TrainingLog>& log) {
            m_logView->setLog(*log, path);
            m_logFacts = factsFromLog(log->facts, trace::summarizeLog(*log));
            m_views->setCurrentWidget(m_logView);
            showFactsOfCurrentView();
            emit statusMessage(tr("Opened the training log %1.").arg(shown));
            emit trainingLogOpened(path);
        });
    return true;
}

void TracePanel::showFactsOfCurrentView()
{
    const bool onLog = m_views->currentWidget() == m_logView;
    if (m_logFacts && (onLog || !m_traceFacts))
        m_banner->setFacts(*m_logFacts, tr("the log"));
    else if (m_traceFacts)
        m_banner->setFacts(*m_traceFacts, tr("the trace"));
    else
        m_banner->clearFacts();
}

void TracePanel::cancelImport()
{
    m_runJob->cancel();
    m_baselineJob->cancel();
    m_logJob->cancel();
}

void TracePanel::closeAll()
{
    cancelImport();
    m_run.reset();
    m_baseline.reset();
    m_logView->clear();
    m_traceFacts.reset();
    m_logFacts.reset();
    showFactsOfCurrentView();
    m_error->setVisible(false);
    m_source->setText(tr("No trace open. Open a PyTorch profiler trace (Kineto JSON, plain or gzip), several "
                         "per-rank files, or drop them on the window."));
    showRun();
}

QStringList TracePanel::runPaths() const
{
    return m_run ? m_run->paths : QStringList();
}

QStringList TracePanel::baselinePaths() const
{
    return m_baseline ? m_baseline->paths : QStringList();
}

QString TracePanel::trainingLogPath() const
{
    return m_logView->path();
}

bool TracePanel::isImporting() const
{
    return m_runJob->isRunning() || m_baselineJob->isRunning() || m_logJob->isRunning();
}

QString TracePanel::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text(); // isVisible() is false while the tab is hidden
}

void TracePanel::showError(const QString& message, bool trainingLog)
{
    const QString text
        = (trainingLog ? tr("Could not read the training log: %1") : tr("Could not import the trace: %1")).arg(message);
    m_error->setText(text);
    m_error->setVisible(true);
    emit statusMessage(text);
    emit importFailed(text);
}

void TracePanel::setKnownHardware(std::vector<HardwareSpec> hardware)
{
    m_knownHardware = hardware;
    m_banner->setKnownHardware(hardware); // to adopt a file's GPU as the scenario's
    m_logView->setKnownHardware(std::move(hardware));
    if (m_run)
        showRun(); // the GPU's proposed preset may change
}

void TracePanel::setSelectedRank(int index)
{
    m_rank->setCurrentIndex(index);
}

void TracePanel::copySelectedKernels() const
{
    QApplication::clipboard()->setText(selectedRowsAsTsv(m_kernelProxy, m_kernelView->selectionModel()));
}

void TracePanel::showRun()
{
    {
        const QSignalBlocker block(m_rank);
        m_rank->clear();
        if (m_run)
            for (const auto& r : m_run->analysis.ranks)
                m_rank->addItem(
                    tr("%1 (%2)").arg(r.rank).arg(QFileInfo(QString::fromStdString(r.sourceFile)).fileName()));
        m_rank->setEnabled(m_rank->count() > 1);
    }
    if (m_run) {
        QString text = tr("Trace: %1").arg(fileNames(m_run->paths));
        if (m_baseline)
            text += tr("   ·   Baseline: %1").arg(fileNames(m_baseline->paths));
        QStringList warnings;
        for (const auto& r : m_run->analysis.ranks)
            for (const auto& w : r.warnings)
                warnings << tr("rank %1: %2").arg(r.rank).arg(QString::fromStdString(w));
        if (!warnings.isEmpty())
            text += QLatin1Char('\n') + tr("Note: %1").arg(warnings.join(QStringLiteral("; ")));
        m_source->setText(text);
    } else if (m_baseline) {
        m_source->setText(
            tr("Baseline: %1 (open the optimised run with Open trace...)").arg(fileNames(m_baseline->paths)));
    }
    showRank();
    updateComparison();
    updateRanks();
    m_stragglers->setRun(m_run ? m_run->analysis : trace::RunAnalysis {});
    m_heatMap->setMatrix(m_run ? trace::busyShareMatrix(m_run->analysis) : trace::BusyShareMatrix {});
}

void TracePanel::updateTimeline()
{
    const int index = m_rank->currentIndex();
    if (!m_run || index < 0 || static_cast<size_t>(index) >= m_run->timelines.size()) {
        m_timeline->setPlaceholder(m_run && m_run->fromSummaries
                ? tr("This run was opened from per-rank summaries: they hold the figures, not the kernels. Open the "
                     "traces themselves to see the timeline.")
                : tr("Open a trace to see its GPU streams here."));
        m_timeline->clear();
        return;
    }
    // Aliasing: the view keeps the whole run alive while it shows its timelines.
    auto timelineOf = [this](size_t i) { return std::shared_ptr<const trace::Timeline>(m_run, &m_run->timelines[i]); };
    if (m_timelineRanks->currentIndex() == 1 && m_run->timelines.size() > 1) {
        // The selected rank first (its steps label the band), then the others in run order.
        std::vector<TimelineView::RankTimeline> ranks { { m_run->analysis.ranks[static_cast<size_t>(index)].rank,
            timelineOf(static_cast<size_t>(index)) } };
        for (size_t i = 0; i < m_run->timelines.size(); ++i)
            if (i != static_cast<size_t>(index))
                ranks.push_back({ m_run->analysis.ranks[i].rank, timelineOf(i) });
        m_timeline->setRankTimelines(std::move(ranks));
    } else {
        m_timeline->setTimeline(timelineOf(static_cast<size_t>(index)));
    }
}

QString TracePanel::kernelTableNote() const
{
    return m_kernelNote->text();
}

void TracePanel::updateKernelTable()
{
    const bool diff = m_run && m_baseline;
    QAbstractItemModel* wanted = diff ? static_cast<QAbstractItemModel*>(m_diff) : m_kernels;
    m_diff->setRows(
        diff ? trace::kernelDiff(m_baseline->analysis, m_run->analysis) : std::vector<trace::KernelDiffRow> {});
    if (m_kernelProxy->sourceModel() != wanted) {
        m_kernelProxy->setSourceModel(wanted);
        // The name takes what the numbers leave; numbers and categories are never elided.
        QHeaderView* header = m_kernelView->horizontalHeader();
        header->setSectionResizeMode(QHeaderView::ResizeToContents);
        header->setSectionResizeMode(0, QHeaderView::Stretch);
        // The diff opens sorted by the size of the change (core's order), the top kernels by their total time.
        m_kernelView->sortByColumn(
            diff ? int { KernelDiffModel::ChangeMs } : int { TopKernelsModel::TotalMs }, Qt::DescendingOrder);
    }
    if (diff) {
        auto extent = [](const trace::RunAnalysis& a) {
            size_t steps = 0;
            for (const auto& r : a.ranks)
                steps += r.steps.size();
            return tr("%n rank(s), ", nullptr, static_cast<int>(a.ranks.size()))
                + tr("%n analysed step(s) in all", nullptr, static_cast<int>(steps));
        };
        m_kernelNote->setText(tr("Kernel diff against the baseline, all ranks pooled, as `trace --compare` prints it: "
                                 "times summed over every rank's analysed steps (baseline: %1; this run: %2), largest "
                                 "change first. It does not follow the selected rank.")
                                  .arg(extent(m_baseline->analysis), extent(m_run->analysis)));
    } else if (m_run) {
        const int index = m_rank->currentIndex();
        m_kernelNote->setText(index >= 0 && index < static_cast<int>(m_run->analysis.ranks.size())
                ? tr("Kernels of rank %1 over its analysed steps. Open a baseline for comparison to see the change "
                     "per kernel.")
                      .arg(m_run->analysis.ranks[static_cast<size_t>(index)].rank)
                : QString());
    } else {
        m_kernelNote->setText(tr("Open a trace to list its kernels."));
    }
}

void TracePanel::showRank()
{
    const int index = m_rank->currentIndex();
    const bool have = m_run && index >= 0 && index < static_cast<int>(m_run->analysis.ranks.size());
    if (!have) {
        m_stepChart->clearSeries();
        m_stepChart->setTitle(tr("Step time by kernel category (open a trace)"));
        m_kernels->setKernels({});
    } else {
        const auto& rank = m_run->analysis.ranks[static_cast<size_t>(index)];
        fillStepChart(
            m_stepChart, rank, m_unit->currentIndex() == 0 ? BreakdownUnit::Share : BreakdownUnit::Milliseconds);
        m_kernels->setKernels(rank.topKernels);
    }
    updateTimeline();
    updateKernelTable();
    updateFigures();
    updateMfu();
}

} // namespace mfu::widgets
