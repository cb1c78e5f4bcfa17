#pragma once
// The Trace panel's view of a training log: per-step throughput (step time, else tokens/s) and the MFU the log
// claims beside the MFU recomputed for the window's scenario (its model and GPU; the log's own GPU count, tokens
// per step and sequence length where it states them), and the core diagnosis of the claim as text. Every figure
// comes from core/diagnosis/log_diagnosis.h; this class lays them out and redoes the check when the scenario changes.
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "core/model/hardware_spec.h"

class QLabel;

namespace mfu::trace {
struct TrainingLog;
}

namespace mfu::widgets {

class ChartView;
class ScenarioModel;

class TrainingLogView : public QWidget {
    Q_OBJECT
public:
    explicit TrainingLogView(ScenarioModel* scenario, QWidget* parent = nullptr);
    ~TrainingLogView() override;

    void setLog(const trace::TrainingLog& log, const QString& path);
    bool hasLog() const { return m_log != nullptr; }
    QString path() const { return m_log ? m_path : QString(); } // the log shown, as opened
    void clear(); // back to "no training log open"
    // The presets, to recognise a peak taken from another GPU; without them only the scenario's GPU is known.
    void setKnownHardware(std::vector<HardwareSpec> hardware);

    ChartView* throughputChart() const { return m_throughput; }
    ChartView* mfuChart() const { return m_mfu; }
    QString summaryText() const;
    QString findingsText() const;

signals:
    void openRequested(); // its "Open training log..." button: the Trace panel asks for the file

private:
    void refresh();

    ScenarioModel* m_scenario;
    std::unique_ptr<trace::TrainingLog> m_log;
    QString m_path;
    std::vector<HardwareSpec> m_known;
    ChartView* m_throughput = nullptr;
    ChartView* m_mfu = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_findings = nullptr;
};

} // namespace mfu::widgets
