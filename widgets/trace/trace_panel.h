#pragma once
// Trace panel: imports profiler traces (a file, several ranks, or a folder) off the GUI thread and shows where the
// step time goes: a stacked category breakdown per step, the baseline-vs-optimised comparison (Lambda's MFU
// paper's Figure 3), a zoomable per-stream timeline (one rank, or every rank stacked on one clock), the top kernels
// (sortable, filterable, Ctrl+C copies TSV; with a baseline, the kernel diff against it), overlap and idle figures,
// per-rank step times with the slowest rank, the straggler view (step-time distribution per rank, who waits for whom
// at collectives), the busy-share heat map of ranks x steps, the roofline and each step's critical path, and the
// measured MFU beside the trace's own and the cost model's prediction for the window's scenario. Every figure comes
// from core/trace; each tab is a page class of its own (as KDAB hotspot does), and this class holds the import, the
// toolbar and what is open.
//
// A folder of ranks (Open Folder of Ranks...) opens as one run: a folder of traces is read on every core with a
// progress cell per rank; a folder of per-rank summaries (*.summary.json, the map step of docs/cluster-scale.md) is
// merged as `trace merge` does, without timelines.
//
// A training log (torchtitan, Megatron-LM, nanoGPT, ...) opens in the "Training log" tab (TrainingLogView).
//
// Import: BackgroundJob runs the reader with a progress bar and Cancel; a cancelled or failed import leaves the
// run shown before untouched, and a failure names the file and byte position.
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/facts/file_facts.h"
#include "core/logs/training_log.h"
#include "core/model/hardware_spec.h"
#include "core/trace/kernel_rules.h"
#include "widgets/trace/trace_selection.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTabWidget;
class QTableView;

namespace mfu::widgets {

class Activity;
class BackgroundJob;
class BusyHeatMap;
class ChartView;
class CriticalPathPage;
class FactsBanner;
class LogPatternRow;
class KernelDiffModel;
class KernelsPage;
class OverviewPage;
class RankProgressView;
class RanksPage;
class RooflinePage;
class ScenarioModel;
class StragglerView;
class TimelinePage;
class TimelineView;
class TopKernelsModel;
class TrainingLogView;

class TracePanel : public QWidget {
    Q_OBJECT
public:
    explicit TracePanel(ScenarioModel* scenario, QWidget* parent = nullptr);
    ~TracePanel() override;
    // The Open dialogs' file filter, in the language of the translator installed now.
    static QString traceFileFilter();

    // The run to analyse (the "optimised" side of a comparison). Files of one run: one per rank, or a folder (of
    // traces, or of per-rank summaries). Files that look like different jobs are held back until the user says to
    // analyse them as one run anyway (analyseAsOneRun).
    void openTraces(const QStringList& paths);
    // A folder of ranks as one run (the same as openTraces({folder})).
    void openRankFolder(const QString& folder);
    // Asks for a folder of ranks and opens it.
    void chooseRankFolder();
    // The run to compare against.
    void openBaseline(const QStringList& paths);
    // A training log: read on a worker thread (progress bar and Cancel, like a trace), then shown in the Training
    // log tab. False (and the error shown) when the file cannot be opened; a log with no step lines fails later
    // with the error shown, and a failed or cancelled read keeps the log shown before.
    // With a pattern: read with that line pattern instead of the built-in formats (LogPatternRow, shown when the
    // built-in formats read no step of a log).
    bool openTrainingLog(const QString& path, const std::optional<trace::LogPattern>& pattern = std::nullopt);
    void cancelImport();
    bool isImporting() const;
    // Closes the run, the baseline and the training log (a demo starts from nothing loaded).
    void closeAll();
    // What is loaded, as the user gave the paths: what a saved scenario lists to reopen.
    QStringList runPaths() const;
    QStringList baselinePaths() const;
    QString trainingLogPath() const;

    // Ranks that look like different jobs (core/trace/run_consistency.h), read but not shown; the sentence saying
    // why is in errorText(). analyseAsOneRun() shows them anyway.
    bool hasHeldRun() const { return m_held != nullptr; }
    void analyseAsOneRun();
    // Fits the cost model's terms to the open run for the scenario as it stands (core/calibration/), and gives the
    // calibration to the scenario model for Predict to show; says why not when the scenario is not the traced run.
    void calibratePredict();

    std::shared_ptr<const TraceRun> run() const { return m_run; }
    std::shared_ptr<const TraceRun> baseline() const { return m_baseline; }
    ChartView* stepChart() const;
    ChartView* comparisonChart() const;
    TimelineView* timeline() const;
    TopKernelsModel* kernelModel() const;
    // The kernel diff against the baseline (the table's model while a baseline is loaded).
    KernelDiffModel* kernelDiffModel() const;
    QString kernelTableNote() const;
    QSortFilterProxyModel* kernelProxy() const;
    QTableView* kernelView() const;
    QLineEdit* kernelFilter() const;
    QStandardItemModel* rankTable() const;
    StragglerView* stragglers() const { return m_stragglers; }
    BusyHeatMap* busyHeatMap() const { return m_heatMap; }
    RooflinePage* rooflinePage() const { return m_roofline; }
    CriticalPathPage* criticalPathPage() const { return m_criticalPath; }
    RankProgressView* rankProgress() const { return m_rankProgress; }
    // The Timeline tab's page, and its choice: the selected rank (0) or every rank stacked (1).
    QWidget* timelineTab() const;
    QComboBox* timelineRanks() const;
    QProgressBar* progressBar() const { return m_progress; }
    QTabWidget* views() const { return m_views; }
    TrainingLogView* trainingLogView() const { return m_logView; }
    // The tab of views() that shows a view (each view sits in its own scroll area).
    QWidget* viewTab(QWidget* view) const;
    // The hardware presets a trace's or log's GPU name is matched against (their "match" patterns); also given to
    // the training log view, to spot another GPU's peak.
    void setKnownHardware(std::vector<HardwareSpec> hardware);
    // Where the trace or log opened last and the scenario disagree, with the button that adopts the file's facts.
    FactsBanner* factsBanner() const { return m_banner; }
    // The import or log read in progress, for the status bar.
    Activity* activity() const { return m_activity; }
    QString errorText() const;
    void setSelectedRank(int index);
    void copySelectedKernels() const;

signals:
    void statusMessage(const QString& message);
    void imported(); // a new run or baseline is shown
    void importFailed(const QString& message);
    void trainingLogOpened(const QString& path); // a new training log is shown

private:
    void chooseTraces();
    void chooseBaseline();
    void startImport(const QStringList& paths, bool baseline);
    void adoptRun(const std::shared_ptr<const TraceRun>& result, bool baseline);
    void showError(const QString& message, bool trainingLog = false);
    void showFactsOfCurrentView();
    void showRun();
    void showRank();
    TraceSelection selection() const;

    ScenarioModel* m_scenario;
    std::unique_ptr<trace::KernelRules> m_rules; // null when the built-in rules are missing (then import says why)
    QString m_rulesError;
    BackgroundJob* m_runJob = nullptr;
    BackgroundJob* m_baselineJob = nullptr;
    BackgroundJob* m_logJob = nullptr;
    std::shared_ptr<const TraceRun> m_run;
    std::shared_ptr<const TraceRun> m_baseline;
    std::shared_ptr<const TraceRun> m_held; // read, but its ranks look like different jobs
    bool m_heldIsBaseline = false;
    // What the open trace and the open log state. The banner compares the one the user is looking at with the
    // scenario: the log's on the Training log tab, the trace's on the others (either when only one is open).
    std::optional<FileFacts> m_traceFacts;
    std::optional<FileFacts> m_logFacts;
    std::vector<HardwareSpec> m_knownHardware;

    // The toolbar, the import state and what is open.
    QPushButton* m_cancel = nullptr;
    QPushButton* m_calibrate = nullptr; // enabled while a run (not only a log) is open
    QProgressBar* m_progress = nullptr;
    RankProgressView* m_rankProgress = nullptr;
    Activity* m_activity = nullptr;
    QLabel* m_source = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_asOneRun = nullptr; // beside the error: analyse held ranks as one run anyway
    FactsBanner* m_banner = nullptr;
    LogPatternRow* m_logPattern = nullptr; // under the error of a log no built-in format reads
    QString m_failedLogPath; // the log that row reads again
    QComboBox* m_rank = nullptr;
    QComboBox* m_unit = nullptr;
    // The pages, one class per tab.
    QTabWidget* m_views = nullptr;
    OverviewPage* m_overview = nullptr;
    TimelinePage* m_timelinePage = nullptr;
    KernelsPage* m_kernelsPage = nullptr;
    RanksPage* m_ranksPage = nullptr;
    StragglerView* m_stragglers = nullptr;
    BusyHeatMap* m_heatMap = nullptr;
    RooflinePage* m_roofline = nullptr;
    CriticalPathPage* m_criticalPath = nullptr;
    TrainingLogView* m_logView = nullptr;
};

} // namespace mfu::widgets
