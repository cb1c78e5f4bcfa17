#pragma once
// Cost panel: what the window's scenario costs and what an MFU uplift is worth (docs/money-and-reports.md). The job is
// a token budget or days of the cluster; it runs at the MFU the user gives, else the measured one, else the cost
// model's prediction. Shows GPU-hours, days, dollars, energy, both savings readings, and charts of cost and days vs MFU
// (baseline and target marked), the savings, and the same job on every GPU preset at its predicted MFU.
// Value labels are named cost<Figure> (costDollars, costRecovered...) for tests. Every figure comes from core
// (reportFigures -> scenarioCost, compareHardware). The inputs are the scenario's (Scenario::cost and its price):
// edits go through the ScenarioModel, so they undo and save like any other; a price typed for a GPU is also
// remembered for that GPU across sessions (price_memory.h).
#include <QList>
#include <QWidget>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/money/hardware_comparison.h"
#include "core/report/report_figures.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;

namespace mfu {
class PresetLibrary;
}

namespace mfu::widgets {

class ChartView;
class EntryReason;
class ScenarioModel;

class CostPanel : public QWidget {
    Q_OBJECT
public:
    CostPanel(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent = nullptr);

    // Inputs, for tests and scripting the panel. MFUs in percent; 0 baseline = measured or predicted, 0 target = none;
    // 0 tokens or days = no job.
    QComboBox* jobKind() const { return m_jobKind; } // 0: token budget, 1: days
    QDoubleSpinBox* tokensBillions() const { return m_tokens; }
    QDoubleSpinBox* days() const { return m_days; }
    QDoubleSpinBox* baselineMfuPercent() const { return m_baseline; }
    QDoubleSpinBox* targetMfuPercent() const { return m_target; }
    QDoubleSpinBox* pricePerGpuHour() const { return m_price; }

    const std::optional<ScenarioCost>& cost() const { return m_figures.cost; }
    const HardwareComparison* hardwareComparison() const { return m_comparison ? &*m_comparison : nullptr; }
    QString errorText() const;
    ChartView* costChart() const { return m_costChart; }
    ChartView* daysChart() const { return m_daysChart; }
    ChartView* savingsChart() const { return m_savingsChart; }
    ChartView* hardwareChart() const { return m_hardwareChart; }
    // Beside the "By GPU" chart: the MFU each GPU is costed at, the GPUs left out and why, or why the chart is empty.
    QString hardwareNote() const;
    // The "By GPU" comparison predicts the job on every GPU preset in a background job: true once the one for the
    // newest scenario is shown (and when there is none to make).
    bool hardwareCurrent() const { return !m_hardwarePending; }

private:
    void syncInputs(); // scenario -> widgets
    void writeInputs(); // widgets -> scenario
    void recompute();
    void showDerivedJobSide();
    void showResults();
    void showHardwareNote();
    ScenarioDocument document() const;
    // A reason under an input, shown while what it holds would not be applied (attachEntryReason).
    void addEntryReason(QFormLayout* form, QDoubleSpinBox* box, const char* objectName, const QString& reason);
    QLabel* addValue(QFormLayout* form, const QString& label, const char* objectName);

    ScenarioModel* m_model;
    const PresetLibrary& m_presets;
    bool m_syncing = false;
    QList<EntryReason*> m_entryReasons; // the inputs' refusals (addEntryReason)

    QComboBox* m_jobKind = nullptr;
    QDoubleSpinBox* m_tokens = nullptr;
    QDoubleSpinBox* m_days = nullptr;
    QDoubleSpinBox* m_baseline = nullptr;
    QDoubleSpinBox* m_target = nullptr;
    QDoubleSpinBox* m_price = nullptr;

    QLabel* m_error = nullptr;
    QLabel* m_hardwareNote = nullptr;
    std::vector<std::pair<std::string, std::string>> m_hardwareLeftOut; // GPU id, why it is not compared
    QLabel* m_mfu = nullptr;
    QLabel* m_gpuHours = nullptr;
    QLabel* m_wallClock = nullptr;
    QLabel* m_dollars = nullptr;
    QLabel* m_energy = nullptr;
    QLabel* m_tokensTrained = nullptr;
    QLabel* m_equivalents = nullptr;
    QLabel* m_recovered = nullptr;
    QLabel* m_timeSaved = nullptr;
    QLabel* m_costSaved = nullptr;

    ChartView* m_costChart = nullptr;
    ChartView* m_daysChart = nullptr;
    ChartView* m_savingsChart = nullptr;
    ChartView* m_hardwareChart = nullptr;

    ReportFigures m_figures;
    std::optional<HardwareComparison> m_comparison;
    class BackgroundJob* m_hardwareJob = nullptr;
    bool m_hardwarePending = false;
};

} // namespace mfu::widgets
