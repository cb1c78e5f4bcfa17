#include "widgets/trace/trace_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
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

#include "core/calibration/calibration_text.h"
#include "core/errors.h"
#include "core/facts/file_facts.h"
#include "core/io/read_file.h"
#include "core/logs/training_log.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/byte_source.h"
#include "core/trace/cross_rank.h"
#include "core/trace/rank_file_labels.h"
#include "core/trace/run_consistency.h"
#include "widgets/charts/category_palette.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/busy_heat_map.h"
#include "widgets/trace/critical_path_page.h"
#include "widgets/trace/facts_banner.h"
#include "widgets/trace/kernels_page.h"
#include "widgets/trace/log_pattern_row.h"
#include "widgets/trace/mfu_figures.h"
#include "widgets/trace/overview_page.h"
#include "widgets/trace/rank_progress.h"
#include "widgets/trace/ranks_page.h"
#include "widgets/trace/roofline_page.h"
#include "widgets/trace/straggler_view.h"
#include "widgets/trace/timeline_page.h"
#include "widgets/trace/trace_charts.h"
#include "widgets/trace/trace_import.h"
#include "widgets/trace/training_log_view.h"

namespace mfu::widgets {

namespace {

QString noTraceOpenText()
{
    return QObject::tr("No trace open. Open a PyTorch profiler trace (Kineto JSON, plain or gzip), an Nsight Systems "
                       "export (.sqlite), several per-rank files, or drop them on the window.");
}

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
    if (!isRegularFile(QFile::encodeName(path).toStdString()) || !file.open(QIODevice::ReadOnly))
        return false; // a FIFO would block the open
    const QByteArray head = file.read(qint64 { 256 } * 1024);
    return trace::looksLikeTrainingLog(std::string_view(head.constData(), static_cast<size_t>(head.size())));
}

} // namespace

TracePanel::TracePanel(ScenarioModel* scenario, QWidget* parent)
    : QWidget(parent)
    , m_scenario(scenario)
    , m_runJob(new BackgroundJob(this, JobKind::Requested))
    , m_baselineJob(new BackgroundJob(this, JobKind::Requested))
    , m_logJob(new BackgroundJob(this, JobKind::Requested))
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
    // A short label: the toolbar's row sets the panel's minimum width, and at 1280x720 a longer one squeezed the
    // scenario dock to a strip of clipped fields once a trace was open.
    auto* openBase = new QPushButton(tr("Open baseline..."));
    openBase->setObjectName(QStringLiteral("openBaseline"));
    openBase->setToolTip(tr("Open a baseline trace (one file per rank) to compare this run with: category shares, "
                            "kernels and step time side by side"));
    connect(openBase, &QPushButton::clicked, this, &TracePanel::chooseBaseline);
    m_calibrate = new QPushButton(tr("Calibrate Predict to this trace"));
    m_calibrate->setObjectName(QStringLiteral("calibrateToTrace"));
    m_calibrate->setToolTip(tr("Fit the cost model's matmul, attention, memory-bound, communication and overhead "
                               "terms to what this trace measured, for the scenario as it describes the traced run; "
                               "Predict then shows the calibrated prediction beside the uncalibrated one"));
    m_calibrate->setEnabled(false);
    connect(m_calibrate, &QPushButton::clicked, this, &TracePanel::calibratePredict);
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
    toolbar->addWidget(m_calibrate);
    toolbar->addStretch();
    toolbar->addWidget(new QLabel(tr("Rank:")));
    toolbar->addWidget(m_rank);
    toolbar->addWidget(new QLabel(tr("Bars:")));
    toolbar->addWidget(m_unit);

    m_source = new QLabel(noTraceOpenText());
    m_source->setObjectName(QStringLiteral("traceSource"));
    m_source->setWordWrap(true);
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("traceError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(errorStyleSheet());
    m_error->setVisible(false);
    m_asOneRun = new QPushButton(tr("Analyse them as one run anyway"));
    m_asOneRun->setObjectName(QStringLiteral("analyseAsOneRun"));
    m_asOneRun->setVisible(false);
    connect(m_asOneRun, &QPushButton::clicked, this, &TracePanel::analyseAsOneRun);

    m_banner = new FactsBanner(m_scenario);

    m_stragglers = new StragglerView;
    m_stragglers->setObjectName(QStringLiteral("stragglers"));
    m_heatMap = new BusyHeatMap;
    m_heatMap->setObjectName(QStringLiteral("busyHeatMap"));
    m_overview = new OverviewPage(m_scenario);
    m_timelinePage = new TimelinePage;
    m_kernelsPage = new KernelsPage;
    m_ranksPage = new RanksPage;
    m_roofline = new RooflinePage;
    m_roofline->setObjectName(QStringLiteral("roofline"));
    m_criticalPath = new CriticalPathPage;
    m_criticalPath->setObjectName(QStringLiteral("criticalPath"));
    m_views = new QTabWidget;
    // Each view in a scroll area: a tab shorter than its charts' usable height (220 px each, two stacked in the
    // training log's) scrolls, instead of raising the window's minimum height above a 720-line screen (706 px: with
    // a title bar the status bar, where progress and Cancel show, fell below the screen's edge).
    const auto addView = [this](QWidget* page, const QString& title) {
        auto* scroll = new QScrollArea;
        scroll->setObjectName(page->objectName().isEmpty() ? QString() : page->objectName() + QStringLiteral("Scroll"));
        scroll->setWidget(page);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setAccessibleName(tr("%1 view").arg(title));
        m_views->addTab(scroll, title);
    };
    addView(m_overview, tr("Breakdown"));
    addView(m_timelinePage, tr("Timeline"));
    addView(m_kernelsPage, tr("Top kernels"));
    addView(m_roofline, tr("Roofline"));
    addView(m_criticalPath, tr("Critical path"));
    addView(m_ranksPage, tr("Ranks"));
    addView(m_stragglers, tr("Stragglers"));
    addView(m_heatMap, tr("Busy by step"));
    m_logView = new TrainingLogView(m_scenario);
    addView(m_logView, tr("Training log"));
    connect(m_views, &QTabWidget::currentChanged, this, [this] { showFactsOfCurrentView(); });
    connect(m_logView, &TrainingLogView::openRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open training log"), QString(), tr("Training logs (*.log *.txt *.out);;All files (*)"));
        if (!path.isEmpty())
            openTrainingLog(path);
    });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(toolbar);
    // The import's progress and Cancel on a row of their own, shown only while importing: in the toolbar's row they
    // widened the panel's minimum for the import's duration, and the scenario dock, squeezed to make room, stayed
    // squeezed after it.
    auto* importRow = new QHBoxLayout;
    importRow->addWidget(m_progress, 1);
    importRow->addWidget(m_cancel);
    layout->addLayout(importRow);
    layout->addWidget(m_rankProgress);
    layout->addWidget(m_source);
    auto* errorRow = new QHBoxLayout;
    errorRow->addWidget(m_error, 1);
    errorRow->addWidget(m_asOneRun, 0, Qt::AlignTop);
    layout->addLayout(errorRow);
    m_logPattern = new LogPatternRow;
    m_logPattern->setObjectName(QStringLiteral("logPatternRow"));
    m_logPattern->setVisible(false);
    connect(m_logPattern, &LogPatternRow::readRequested, this,
        [this](const trace::LogPattern& pattern) { openTrainingLog(m_failedLogPath, pattern); });
    layout->addWidget(m_logPattern);
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
        connect(job, &BackgroundJob::failed, this, [this, job](int, const QString& message) {
            showError(message, job == m_logJob);
            // A log that could not be read (an empty file, another format) is the one the user asked for: the
            // previous log's charts, figures and banner facts would be read as this one's.
            if (job == m_logJob) {
                // Whatever the format, a pattern of the user's own can still read it: offered right here.
                m_logPattern->setVisible(!m_failedLogPath.isEmpty());
                if (m_logPattern->isVisibleTo(this))
                    m_error->setText(m_error->text() + QLatin1Char(' ') + tr("Or give that pattern here, below."));
                m_logView->clear();
                m_logFacts.reset();
                showFactsOfCurrentView();
            }
        });
        connect(job, &BackgroundJob::cancelled, this, [this, job] {
            emit statusMessage(job == m_logJob
                    ? tr("Reading the training log cancelled; the previous log is still shown.")
                    : tr("Trace import cancelled; the previous trace is still shown."));
        });
    }
    connect(m_scenario, &ScenarioModel::changed, m_overview->mfu(), &MfuFigures::refresh);
    showRun();
}

TracePanel::~TracePanel() = default;

QString TracePanel::traceFileFilter()
{
    // Translated when asked, not at static initialisation (before any translator is installed).
    return tr("Profiler traces (*.json *.json.gz *.sqlite);;Training logs (*.log *.txt *.out);;All files (*)");
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
    m_asOneRun->setVisible(false);
    m_held.reset();
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
            // Ranks of different jobs are held back: a straggler verdict across them would compare ranks that never
            // ran together. The user can still insist.
            const trace::RunConsistency check = trace::checkOneRun(result->analysis.ranks);
            if (!check.oneRun()) {
                m_held = result;
                m_heldIsBaseline = baseline;
                const QString text = QString::fromStdString(check.sentence())
                    + tr(" They are read but not analysed as one run; what was shown before is still shown.");
                m_error->setText(text);
                m_error->setVisible(true);
                m_asOneRun->setVisible(true);
                emit statusMessage(text);
                emit importFailed(text);
                return;
            }
            adoptRun(result, baseline);
        });
}

void TracePanel::analyseAsOneRun()
{
    if (!m_held)
        return;
    std::shared_ptr<const TraceRun> held = std::move(m_held);
    m_held.reset();
    m_error->setVisible(false);
    m_asOneRun->setVisible(false);
    adoptRun(held, m_heldIsBaseline);
}

void TracePanel::adoptRun(const std::shared_ptr<const TraceRun>& result, bool baseline)
{
    (baseline ? m_baseline : m_run) = result;
    if (!baseline)
        m_traceFacts = factsFromTrace(result->analysis);
    m_calibrate->setEnabled(m_run != nullptr);
    showRun();
    showFactsOfCurrentView();
    emit statusMessage(tr("Imported %1.").arg(fileNames(result->paths)));
    emit imported();
}

bool TracePanel::openTrainingLog(const QString& path, const std::optional<trace::LogPattern>& pattern)
{
    m_failedLogPath = path; // until it reads: what the pattern row would read again
    try {
        requireRegularFile(QFile::encodeName(path).toStdString(), "a training log"); // a FIFO would block
    } catch (const InputError& e) {
        showError(QString::fromStdString(e.what()), true);
        return false;
    }
    m_error->setVisible(false);
    const QString shown = QFileInfo(path).fileName();
    emit statusMessage(tr("Reading the training log %1...").arg(shown));
    const std::string local = QFile::encodeName(path).toStdString();
    const std::string name = shown.toStdString();
    m_logJob->start<std::shared_ptr<const trace::TrainingLog>>(
        [local, name, pattern](JobControl& control) {
            std::ifstream in = openInputStream(local, "a training log");
            trace::ReadControl read;
            read.cancel = &control.cancel;
            read.onProgress = [&control](uint64_t done, uint64_t total) {
                if (total > 0)
                    control.setProgress(static_cast<double>(done) / static_cast<double>(total));
            };
            return std::make_shared<const trace::TrainingLog>(trace::parseTrainingLog(in, name, pattern, read));
        },
        [this, path, shown](std::shared_ptr<const trace::TrainingLog>& log) {
            m_logPattern->setVisible(false);
            m_logView->setLog(*log, path);
            m_logFacts = factsFromLog(log->facts, trace::summarizeLog(*log));
            m_views->setCurrentWidget(viewTab(m_logView));
            showFactsOfCurrentView();
            emit statusMessage(tr("Opened the training log %1.").arg(shown));
            emit trainingLogOpened(path);
        });
    return true;
}

QWidget* TracePanel::viewTab(QWidget* view) const
{
    // The scroll area around the view (its viewport's parent), the widget m_views holds.
    return view->parentWidget() ? view->parentWidget()->parentWidget() : view;
}

void TracePanel::showFactsOfCurrentView()
{
    const bool onLog = m_views->currentWidget() == viewTab(m_logView);
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
    m_held.reset();
    m_calibrate->setEnabled(false);
    m_asOneRun->setVisible(false);
    m_logView->clear();
    m_traceFacts.reset();
    m_logFacts.reset();
    showFactsOfCurrentView();
    m_error->setVisible(false);
    m_source->setText(noTraceOpenText());
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

void TracePanel::calibratePredict()
{
    if (!m_run)
        return;
    std::vector<std::string> paths;
    for (const QString& p : m_run->paths)
        paths.push_back(p.toStdString());
    try {
        // Two evaluations of the cost model and a sum over the analysed steps: milliseconds, on this thread.
        TraceCalibration c = calibrateFromTrace(m_scenario->scenario(), m_run->analysis, paths);
        const QString summary = QString::fromStdString(calibrationSummaryText(c));
        m_scenario->setTraceCalibration(std::move(c), fileNames(m_run->paths));
        emit statusMessage(tr("Predict calibrated to this trace: %1.").arg(summary));
    } catch (const std::exception& e) {
        // The scenario does not describe the traced run (another GPU, other tokens per step): the banner above
        // offers the trace's facts to adopt first.
        const QString why = tr("Cannot calibrate Predict to this trace: %1").arg(QString::fromUtf8(e.what()));
        m_error->setText(why);
        m_error->setVisible(true);
        emit statusMessage(why);
    }
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
    m_overview->setKnownHardware(hardware);
    m_roofline->setKnownHardware(hardware);
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
    m_kernelsPage->copySelected();
}

ChartView* TracePanel::stepChart() const
{
    return m_overview->stepChart();
}
ChartView* TracePanel::comparisonChart() const
{
    return m_overview->comparisonChart();
}
TimelineView* TracePanel::timeline() const
{
    return m_timelinePage->timeline();
}
QWidget* TracePanel::timelineTab() const
{
    return viewTab(m_timelinePage);
}
QComboBox* TracePanel::timelineRanks() const
{
    return m_timelinePage->ranks();
}
TopKernelsModel* TracePanel::kernelModel() const
{
    return m_kernelsPage->kernelModel();
}
KernelDiffModel* TracePanel::kernelDiffModel() const
{
    return m_kernelsPage->diffModel();
}
QString TracePanel::kernelTableNote() const
{
    return m_kernelsPage->note();
}
QSortFilterProxyModel* TracePanel::kernelProxy() const
{
    return m_kernelsPage->proxy();
}
QTableView* TracePanel::kernelView() const
{
    return m_kernelsPage->view();
}
QLineEdit* TracePanel::kernelFilter() const
{
    return m_kernelsPage->filter();
}
QStandardItemModel* TracePanel::rankTable() const
{
    return m_ranksPage->table();
}

TraceSelection TracePanel::selection() const
{
    return { m_run, m_baseline, m_rank->currentIndex() };
}

void TracePanel::showRun()
{
    {
        const QSignalBlocker block(m_rank);
        m_rank->clear();
        if (m_run) {
            // The combo is kept narrow: each file by what tells it apart from the others, in full as its tooltip.
            // A label longer than the combo's room (a single file's whole name) is cut in its middle, so that
            // its start and its distinctive end both show and the cut says it is one. The room is what
            // QComboBox sizes itself to: minimumContentsLength letters 'X'.
            const auto labels = trace::rankFileLabels(m_run->analysis);
            const QFontMetrics metrics = m_rank->fontMetrics();
            const int room = metrics.horizontalAdvance(QLatin1Char('X')) * m_rank->minimumContentsLength();
            for (size_t i = 0; i < labels.size(); ++i) {
                const auto& r = m_run->analysis.ranks[i];
                const QString rank = QString::number(r.rank);
                const QString label = metrics.elidedText(QString::fromStdString(labels[i]), Qt::ElideMiddle,
                    room - metrics.horizontalAdvance(tr("%1 ()").arg(rank)));
                m_rank->addItem(tr("%1 (%2)").arg(rank, label));
                m_rank->setItemData(m_rank->count() - 1, QString::fromStdString(r.sourceFile), Qt::ToolTipRole);
            }
        }
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
        // Analysed as one run because the user said so: the figures across ranks stay suspect, and say so.
        const trace::RunConsistency check = trace::checkOneRun(m_run->analysis.ranks);
        if (!check.oneRun())
            text += QLatin1Char('\n')
                + tr("Analysed as one run at your request, although %1")
                      .arg(QString::fromStdString(check.sentence()).section(QStringLiteral(": "), 1));
        m_source->setText(text);
    } else if (m_baseline) {
        m_source->setText(
            tr("Baseline: %1 (open the optimised run with Open trace...)").arg(fileNames(m_baseline->paths)));
    }
    showRank();
    m_ranksPage->show(selection());
    m_stragglers->setRun(m_run ? m_run->analysis : trace::RunAnalysis {});
    m_heatMap->setMatrix(m_run ? trace::busyShareMatrix(m_run->analysis) : trace::BusyShareMatrix {});
}

void TracePanel::showRank()
{
    const TraceSelection now = selection();
    m_overview->show(now, m_unit->currentIndex() == 0 ? BreakdownUnit::Share : BreakdownUnit::Milliseconds);
    m_timelinePage->show(now);
    m_kernelsPage->show(now);
    m_roofline->show(now);
    m_criticalPath->show(now);
}

} // namespace mfu::widgets
