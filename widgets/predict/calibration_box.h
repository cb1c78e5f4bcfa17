#pragma once
// CalibrationBox: enter one measured MFU (or use the scenario's measured tokens/s) and the cost model's efficiency
// constants are fitted to reproduce it (core calibrateToMfu). The box shows the scale, the constants before and
// after, and how the predictions move - this configuration and the planner's best - before anything changes;
// "Apply" stores the calibrated constants in the scenario's hardware so every chart follows, "Undo" restores them.
#include <QGroupBox>

#include <functional>
#include <optional>

#include "core/costmodel/calibration.h"
#include "core/costmodel/planner.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace mfu::widgets {

class ReasonLabel;
class ScenarioModel;

class CalibrationBox : public QGroupBox {
    Q_OBJECT
public:
    explicit CalibrationBox(ScenarioModel* model, QWidget* parent = nullptr);

    // The planner's best configuration, whose prediction is shown moving too.
    void setBestConfig(const std::optional<PlannedConfig>& best) { m_best = best; }
    // measuredMfuPercent: e.g. 45 for 45%. Returns false and shows why when calibration is impossible.
    bool calibrateToMfu(double measuredMfuPercent);
    bool calibrateToMeasuredThroughput();
    void applyCalibration();
    void undoCalibration();
    QString resultText() const;
    // Why the last calibration was not made (what the field holds, a measurement nothing reaches), "" when it was.
    QString reasonText() const;
    const std::optional<CalibrationResult>& result() const { return m_result; }

private:
    bool show(const std::function<CalibrationResult()>& calibrate);
    bool refuse(const QString& reason);
    void updateButtons();

    ScenarioModel* m_model;
    std::optional<PlannedConfig> m_best;
    std::optional<CalibrationResult> m_result;
    bool m_haveUndo = false;
    std::optional<CostModelConstants> m_undo; // the hardware's constants before the last Apply

    QLineEdit* m_measured = nullptr;
    QPushButton* m_fromMfu = nullptr;
    QPushButton* m_fromThroughput = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_undoButton = nullptr;
    QLabel* m_resultLabel = nullptr;
    ReasonLabel* m_reason = nullptr; // under the field, in the colour of every refused entry
};

} // namespace mfu::widgets
