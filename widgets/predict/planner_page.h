#pragma once
// The Predict panel's Planner tab: the planner's top layouts for the scenario, searched in a BackgroundJob (a newer
// scenario cancels the older search and only the newest result is shown), the reason each ranks where it does, Apply
// (hands the selected layout to the scenario), and the calibration box, which shows the best layout moving too.
#include <QString>
#include <QWidget>

#include <optional>

#include "core/costmodel/planner.h"
#include "core/scenario/scenario.h"

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace mfu::widgets {

class BackgroundJob;
class CalibrationBox;
class PlannerTableModel;
class ScenarioModel;

class PlannerPage : public QWidget {
    Q_OBJECT
public:
    explicit PlannerPage(ScenarioModel* model, QWidget* parent = nullptr);

    // Searches the layouts of `scenario`; tieTolerance: layouts within it of the fastest are ties (the error band).
    void start(const Scenario& scenario, double tieTolerance);
    BackgroundJob* job() const { return m_job; }

    PlannerTableModel* plannerModel() const { return m_planner; }
    QSortFilterProxyModel* plannerView() const { return m_sorted; }
    QTableView* table() const { return m_table; }
    CalibrationBox* calibration() const { return m_calibration; }
    // The newest plan's first layout, when there is one.
    const std::optional<PlannedConfig>& best() const { return m_best; }
    // Applies the layout in a row of the (sorted) table to the scenario. False when there is none.
    bool apply(int viewRow);

signals:
    void planShown(); // a new plan (and best) is on screen
    void applied(const QString& description);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showReason();
    // The "Why" column only where the table has room for it beside the figures (the selected row's reason is shown
    // in full under the table at any width).
    void fitColumns();

    ScenarioModel* m_model;
    BackgroundJob* m_job = nullptr;
    PlannerTableModel* m_planner = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
    QTableView* m_table = nullptr;
    QPushButton* m_apply = nullptr;
    QLabel* m_status = nullptr;
    // Shown while Predict has a trace calibration: the rows stay the validated model's.
    QLabel* m_uncalibrated = nullptr;
    QLabel* m_reason = nullptr; // the selected (or top) row's reason, in full
    CalibrationBox* m_calibration = nullptr;
    std::optional<PlannedConfig> m_best;
    // The rows are another scenario's plan (the one before, while this one's runs or after it was cancelled): shown,
    // never applied.
    bool m_stale = false;
    QString m_plannedScenario; // what the rows plan ("Llama 3.1 8B on 8 x NVIDIA B200"), set when a plan is in
};

} // namespace mfu::widgets
