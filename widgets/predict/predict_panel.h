#pragma once
// Predict panel: "what would my MFU be if...". For the window's scenario it shows the cost model's prediction
// (PredictSummary: MFU, HFU, tokens/s, TFLOPS/GPU, step time, whether it fits, the bottleneck), the waterfall from
// peak to achieved MFU and the memory breakdown against the GPU's capacity - recomputed on every edit, since one
// evaluation takes microseconds - and, in the background, the sweeps over sequence length, GPU count and precision
// (SweepRun) plus the planner's top configurations (PlannerPage), each a BackgroundJob: a newer edit cancels the
// older run and only the newest result is drawn. The parallelism editor on the left edits the same ScenarioModel;
// "Apply" hands a planned configuration to it. One class per tab; this one lays them out and restarts them.
#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "core/costmodel/error_band.h"
#include "core/costmodel/step_prediction.h"
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
class PlannerPage;
class PlannerTableModel;
class PredictSummary;
class ScenarioModel;
class SweepRun;

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
    ChartView* networkChart() const { return m_networkChart; }
    ChartView* precisionTflopsChart() const { return m_precisionTflops; }
    ChartView* precisionMfuChart() const { return m_precisionMfu; }
    PlannerTableModel* plannerModel() const;
    QSortFilterProxyModel* plannerView() const; // what the table shows, sortable
    QTableView* plannerTable() const;
    CalibrationBox* calibration() const;
    LeverTable* leverTable() const { return m_levers; }
    QTabWidget* views() const { return m_views; }

    // The sweeps and the planner in progress, for the status bar.
    Activity* activity() const { return m_activity; }
    // True while a sweep or the planner is still computing for the newest scenario.
    bool isComputing() const;
    // True when the headline figures (MFU, HFU, tokens/s, TFLOPS, step time, band) are those of the newest scenario.
    bool headlineCurrent() const;
    // Sweep points for an axis (empty: the core's defaults: 2k-128k, 1-16,384 GPUs, 25-3,200 Gb/s). Restarts that
    // sweep (not the precision sweep, whose points are the core's).
    void setSweepValues(SweepAxis axis, std::vector<double> values);
    // Residuals of the published runs the error bands come from (the application passes the shipped validation
    // table's); without them the band is +-5%.
    void setErrorBandModel(ErrorBandModel model);
    // Applies the configuration in a row of the (sorted) planner table to the scenario. False when there is none.
    bool applyPlannedConfig(int viewRow);

private:
    void buildUi();
    QWidget* buildProgressRow();
    void recompute(); // cheap: one evaluation, the summary, waterfall and memory charts
    void restartBackground(); // sweeps and planner, when an input they read has changed
    void startSweep(SweepAxis axis);
    void updateProgress();
    void showMemory();
    // The prediction calibrated to the model's trace calibration, if any, under the headline (core/calibration/).
    void showCalibrated(const ErrorBand& band);
    std::vector<BackgroundJob*> jobs() const;

    ScenarioModel* m_model;
    ParallelismEditor* m_editor = nullptr;
    PredictSummary* m_summary = nullptr;
    LeverTable* m_levers = nullptr;
    QTabWidget* m_views = nullptr;
    ChartView* m_waterfall = nullptr;
    ChartView* m_memory = nullptr;
    ChartView* m_seqChart = nullptr;
    ChartView* m_gpuChart = nullptr;
    ChartView* m_networkChart = nullptr;
    ChartView* m_precisionTflops = nullptr;
    ChartView* m_precisionMfu = nullptr;
    SweepRun* m_seqSweep = nullptr;
    SweepRun* m_gpuSweep = nullptr;
    SweepRun* m_networkSweep = nullptr;
    SweepRun* m_precisionSweep = nullptr;
    PlannerPage* m_plannerPage = nullptr;

    QProgressBar* m_progress = nullptr;
    Activity* m_activity = nullptr;
    QPushButton* m_cancel = nullptr;
    QLabel* m_backgroundStatus = nullptr;

    std::vector<double> m_seqValues, m_gpuValues, m_networkValues;
    std::optional<StepPrediction> m_current; // empty when the scenario cannot be evaluated
    ErrorBandModel m_bands;
    bool m_restartQueued = false;
    std::string m_backgroundInputs; // the scenario as the sweeps and the planner read it, when they last started
};

} // namespace mfu::widgets
