#include "widgets/trace_panel.h"

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
#include "widgets/activity.h"
#include "widgets/background_job.h"
#include "widgets/chart_view.h"
#include "widgets/facts_banner.h"
#include "widgets/scenario_model.h"
#include "widgets/timeline_view.h"
#include "widgets/top_kernels_model.h"
#include "widgets/trace_charts.h"
#include "widgets/trace_import.h"
#include "widgets/training_log_view.h"

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

    m_timeline = new TimelineView;
    m_views = new QTabWidget;
    m_views->addTab(buildOverview(), tr("Breakdown"));
    m_views->addTab(m_timeline, tr("Timeline"));
    m_views->addTab(buildKernels(), tr("Top kernels"));
    m_views->addTab(buildRanks(), tr("Ranks"));
    m_logView = new TrainingLogView(m_scenario);
    m_views->addTab(m_logView, tr("Training log"));
    connect(m_logView, &TrainingLogView::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open training log"), QString(), tr("Training logs (*.log *.txt *.out);;All files (*)"));
        if (!path.isEmpty())
            openTrainingLog(path);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
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
        m_activity->update(
            logOnly ? tr("Reading the training log") : tr("Importing the trace"), busy, m_progress->value() / 1000.0);
    };
    for (BackgroundJob* job : { m_runJob, m_baselineJob, m_logJob }) {
        connect(job, &BackgroundJob::progressChanged, this, [this, showImportState](double f) {
            m_progress->setValue(static_cast<int>(f * 1000));
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
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
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
    m_error->setVisible(false);
    emit statusMessage(tr("Importing %1...").arg(fileNames(paths)));
    const trace::KernelRules rules = *m_rules; // the worker gets its own copy: nothing shared with the GUI thread
    BackgroundJob* job = baseline ? m_baselineJob : m_runJob;
    job->start<std::shared_ptr<const TraceRun>>(
        [paths, rules](
            JobControl& control) { return std::make_shared<const TraceRun>(importTraceRun(paths, rules, control)); },
        [this, baseline](std::shared_ptr<const TraceRun>& result) {
            (baseline ? m_baseline : m_run) = result;
            if (!baseline)
                m_banner->setFacts(factsFromTrace(result->analysis), tr("the trace"));
            showRun();
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
            m_banner->setFacts(factsFromLog(log->facts), tr("the log"));
            m_views->setCurrentWidget(m_logView);
            emit statusMessage(tr("Opened the training log %1.").arg(shown));
            emit trainingLogOpened(path);
        });
    return true;
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
    m_banner->setFacts({}, QString());
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
}

void TracePanel::showRank()
{
    const int index = m_rank->currentIndex();
    const bool have = m_run && index >= 0 && index < static_cast<int>(m_run->analysis.ranks.size());
    if (!have) {
        m_stepChart->clearSeries();
        m_stepChart->setTitle(tr("Step time by kernel category (open a trace)"));
        m_timeline->clear();
        m_kernels->setKernels({});
        m_kernels->clearBaseline();
    } else {
        const auto& rank = m_run->analysis.ranks[static_cast<size_t>(index)];
        fillStepChart(
            m_stepChart, rank, m_unit->currentIndex() == 0 ? BreakdownUnit::Share : BreakdownUnit::Milliseconds);
        // Aliasing: the view keeps the whole run alive while it shows one of its timelines.
        m_timeline->setTimeline(
            std::shared_ptr<const trace::Timeline>(m_run, &m_run->timelines[static_cast<size_t>(index)]));
        m_kernels->setKernels(rank.topKernels);
        // Against the baseline's rank of the same index (its first rank when it has fewer).
        if (m_baseline && !m_baseline->analysis.ranks.empty()) {
            const auto& ranks = m_baseline->analysis.ranks;
            const auto& base = ranks[std::min(static_cast<size_t>(index), ranks.size() - 1)];
            m_kernels->setBaseline(
                base.topKernels, static_cast<double>(base.steps.size()), static_cast<double>(rank.steps.size()));
        } else {
            m_kernels->clearBaseline();
        }
    }
    updateFigures();
    updateMfu();
}

} // namespace mfu::widgets
