#pragma once
// Predict panel: "what would my MFU be if...". For the window's scenario it shows the cost model's prediction (MFU,
// HFU, tokens/s, TFLOPS/GPU, step time, whether it fits, the bottleneck in one sentence), the waterfall from peak to
// achieved MFU and the memory breakdown against the GPU's capacity - all recomputed synchronously on every edit,
// since one evaluation takes microseconds - and, in the background, the sweeps over sequence length, GPU count and
// precision plus the planner's top configurations (each a BackgroundJob: a newer edit cancels the older run and only
// the newest result is drawn). The parallelism editor on the left edits the same ScenarioModel; "Apply" hands a
// planned configuration to it.
#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "core/costmodel/error_band.h"
#include "core/costmodel/sweep.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;

namespace mfu::widgets {

class Activity;
class BackgroundJob;
class CalibrationBox;
class ChartView;
class LeverTable;
class ParallelismEditor;
class PlannerTableModel;
class ScenarioModel;

class PredictPanel : public QWidget {
    Q_OBJECT
public:
    explicit PredictPanel(ScenarioModel* model, QWidget* parent = nullptr);
    ~PredictPanel() override;

    ParallelismEditor* editor() const { return m_editor; }
    ChartView* waterfallChart() const { return m_waterfall; }
    ChartView* memoryChart() const { return m_memory; }
    ChartView* seqChart() const { return m_seqChart; }
    ChartView* gpuChart() const { return m_gpuChart; }
    ChartView* precisionTflopsChart() const { return m_precisionTflops; }
    ChartView* precisionMfuChart() const { return m_precisionMfu; }
    PlannerTableModel* plannerModel() const { return m_planner; }
    QSortFilterProxyModel* plannerView() const { return m_plannerSorted; } // what the table shows, sortable
    QTableView* plannerTable() const { return m_plannerTable; }
    CalibrationBox* calibration() const { return m_calibration; }
    LeverTable* leverTable() const { return m_levers; }
    QTabWidget* views() const { return m_views; }

    // The sweeps and the planner in progress, for the status bar.
    Activity* activity() const { return m_activity; }
    // True while a sweep or the planner is still computing for the newest scenario.
    bool isComputing() const;
    // Sweep points for an axis (empty: the core's defaults: 2k-128k, 1-16,384 GPUs). Restarts that sweep.
    void setSweepValues(SweepAxis axis, std::vector<double> values);
    // Residuals of the published runs the error bands come from (the application passes the shipped validation
    // table's); without them the band is +-5%.
    void setErrorBandModel(ErrorBandModel model);
    // Applies the configuration in a row of the (sorted) planner table to the scenario. False when there is none.
    bool applyPlannedConfig(int viewRow);

private:
    void buildUi();
    QWidget* buildSummary();
    QWidget* buildPlannerTab();
    void recompute(); // cheap: one evaluation, the summary, waterfall and memory charts
    void restartBackground(); // sweeps and planner, when an input they read has changed
    void startSweep(SweepAxis axis);
    void startPlanner();
    void updateProgress();
    void showMemory();
    void showPlannerReason();

    ScenarioModel* m_model;
    ParallelismEditor* m_editor = nullptr;
    LeverTable* m_levers = nullptr;
    QLabel* m_overPacking = nullptr; // the MFU attention over the packing length would claim, labelled

    QLabel* m_mfu = nullptr;
    QLabel* m_hfu = nullptr;
    QLabel* m_tokens = nullptr;
    QLabel* m_tflops = nullptr;
    QLabel* m_stepTime = nullptr;
    QLabel* m_fits = nullptr;
    QLabel* m_band = nullptr; // the error band of the headline figures
    QLabel* m_misfit = nullptr; // why the figures are greyed: the layout does not fit
    QLabel* m_bottleneck = nullptr;
    QProgressBar* m_progress = nullptr;
    Activity* m_activity = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_backgroundStatus = nullptr;

    QTabWidget* m_views = nullptr;
    ChartView* m_waterfall = nullptr;
    ChartView* m_memory = nullptr;
    ChartView* m_seqChart = nullptr;
    ChartView* m_gpuChart = nullptr;
    ChartView* m_precisionTflops = nullptr;
    ChartView* m_precisionMfu = nullptr;
    PlannerTableModel* m_planner = nullptr;
    QSortFilterProxyModel* m_plannerSorted = nullptr;
    QTableView* m_plannerTable = nullptr;
    QPushButton* m_apply = nullptr;
    QLabel* m_plannerStatus = nullptr;
    QLabel* m_plannerReason = nullptr; // the selected (or top) row's reason, in full
    CalibrationBox* m_calibration = nullptr;

    BackgroundJob* m_seqJob = nullptr;
    BackgroundJob* m_gpuJob = nullptr;
    BackgroundJob* m_precisionJob = nullptr;
    BackgroundJob* m_planJob = nullptr;
    std::vector<double> m_seqValues, m_gpuValues;
    std::optional<StepPrediction> m_current; // empty when the scenario cannot be evaluated
    ErrorBandModel m_bands;
    std::optional<PlannedConfig> m_best; // the newest planner result's winner
    bool m_restartQueued = false;
    std::string m_backgroundInputs; // the scenario as the sweeps and the planner read it, when they last started
};

} // namespace mfu::widgets
