#pragma once
// Trace panel: imports profiler traces (a file, several ranks, or a folder) off the GUI thread and shows where the
// step time goes: a stacked category breakdown per step, the baseline-vs-optimised comparison (Lambda's MFU
// paper's Figure 3), a zoomable per-stream timeline (one rank, or every rank stacked on one clock), the top kernels
// (sortable, filterable, Ctrl+C copies TSV; with a baseline, the kernel diff against it), overlap and idle figures,
// per-rank step times with the slowest rank, the straggler view (step-time distribution per rank, who waits for whom
// at collectives), the busy-share heat map of ranks x steps, and the measured MFU beside the cost model's
// prediction for the window's scenario. Every figure comes from core/trace; this class lays them out.
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

#include "core/model/hardware_spec.h"
#include "core/scenario/file_facts.h"
#include "core/trace/kernel_rules.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTabWidget;
class QTableView;

namespace mfu::widgets {

class BackgroundJob;
class BusyHeatMap;
class FactsBanner;
class KernelDiffModel;
class RankProgressView;
class StragglerView;
class ChartView;
class ScenarioModel;
class TimelineView;
class TopKernelsModel;
class TrainingLogView;
class Activity;
struct TraceRun;

class TracePanel : public QWidget {
    Q_OBJECT
public:
    explicit TracePanel(ScenarioModel* scenario, QWidget* parent = nullptr);
    ~TracePanel() override;
    // The Open dialogs' file filter, in the language of the translator installed now.
    static QString traceFileFilter();

    // The run to analyse (the "optimised" side of a comparison). Files of one run: one per rank, or a folder (of
    // traces, or of per-rank summaries).
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
    bool openTrainingLog(const QString& path);
    void cancelImport();
    bool isImporting() const;
    // Closes the run, the baseline and the training log (a demo starts from nothing loaded).
    void closeAll();
    // What is loaded, as the user gave the paths: what a saved scenario lists to reopen.
    QStringList runPaths() const;
    QStringList baselinePaths() const;
    QString trainingLogPath() const;

    std::shared_ptr<const TraceRun> run() const { return m_run; }
    std::shared_ptr<const TraceRun> baseline() const { return m_baseline; }
    ChartView* stepChart() const { return m_stepChart; }
    ChartView* comparisonChart() const { return m_comparisonChart; }
    TimelineView* timeline() const { return m_timeline; }
    TopKernelsModel* kernelModel() const { return m_kernels; }
    // The kernel diff against the baseline (the table's model while a baseline is loaded).
    KernelDiffModel* kernelDiffModel() const { return m_diff; }
    QString kernelTableNote() const;
    QSortFilterProxyModel* kernelProxy() const { return m_kernelProxy; }
    QTableView* kernelView() const { return m_kernelView; }
    QLineEdit* kernelFilter() const { return m_filter; }
    QStandardItemModel* rankTable() const { return m_ranks; }
    StragglerView* stragglers() const { return m_stragglers; }
    BusyHeatMap* busyHeatMap() const { return m_heatMap; }
    RankProgressView* rankProgress() const { return m_rankProgress; }
    // The Timeline tab's page, and its choice: the selected rank (0) or every rank stacked (1).
    QWidget* timelineTab() const { return m_timelineTab; }
    QComboBox* timelineRanks() const { return m_timelineRanks; }
    QProgressBar* progressBar() const { return m_progress; }
    QTabWidget* views() const { return m_views; }
    TrainingLogView* trainingLogView() const { return m_logView; }
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
    void showError(const QString& message, bool trainingLog = false);
    void showFactsOfCurrentView();
    void showRun();
    void showRank();
    void updateComparison();
    void updateFigures();
    void updateMfu();
    void updateRanks();
    void updateTimeline();
    void updateKernelTable();
    QLabel* addFigure(QFormLayout* form, const QString& label, const char* objectName);
    QWidget* buildOverview();
    QWidget* buildKernels();
    QWidget* buildRanks();
    QWidget* buildTimeline();

    ScenarioModel* m_scenario;
    std::unique_ptr<trace::KernelRules> m_rules; // null when the built-in rules are missing (then import says why)
    QString m_rulesError;
    BackgroundJob* m_runJob = nullptr;
    BackgroundJob* m_baselineJob = nullptr;
    BackgroundJob* m_logJob = nullptr;
    std::shared_ptr<const TraceRun> m_run;
    std::shared_ptr<const TraceRun> m_baseline;
    // What the open trace and the open log state. The banner compares the one the user is looking at with the
    // scenario: the log's on the Training log tab, the trace's on the others (either when only one is open).
    std::optional<FileFacts> m_traceFacts;
    std::optional<FileFacts> m_logFacts;

    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    RankProgressView* m_rankProgress = nullptr;
    Activity* m_activity = nullptr;
    QLabel* m_source = nullptr;
    QLabel* m_error = nullptr;
    FactsBanner* m_banner = nullptr;
    QComboBox* m_rank = nullptr;
    QComboBox* m_unit = nullptr;
    QTabWidget* m_views = nullptr;
    ChartView* m_stepChart = nullptr;
    ChartView* m_comparisonChart = nullptr;
    QLabel* m_comparisonHint = nullptr; // shown instead of an empty comparison chart
    TimelineView* m_timeline = nullptr;
    QWidget* m_timelineTab = nullptr;
    QComboBox* m_timelineRanks = nullptr;
    StragglerView* m_stragglers = nullptr;
    BusyHeatMap* m_heatMap = nullptr;
    TrainingLogView* m_logView = nullptr;
    TopKernelsModel* m_kernels = nullptr;
    KernelDiffModel* m_diff = nullptr;
    QLabel* m_kernelNote = nullptr;
    QSortFilterProxyModel* m_kernelProxy = nullptr;
    QTableView* m_kernelView = nullptr;
    QLineEdit* m_filter = nullptr;
    QStandardItemModel* m_ranks = nullptr;
    QLabel* m_slowest = nullptr;
    // Figures of the selected rank.
    QLabel* m_steps = nullptr;
    QLabel* m_stepTime = nullptr;
    QLabel* m_busy = nullptr;
    QLabel* m_idle = nullptr;
    QLabel* m_comm = nullptr;
    QLabel* m_overlap = nullptr;
    QLabel* m_exposed = nullptr;
    QLabel* m_kernelCount = nullptr;
    QLabel* m_gpu = nullptr;
    QLabel* m_measuredMfu = nullptr;
    QLabel* m_predictedMfu = nullptr;
    QLabel* m_mfuNote = nullptr;
    std::vector<HardwareSpec> m_knownHardware;
};

} // namespace mfu::widgets
