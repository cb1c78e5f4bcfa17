#pragma once
// FactsBanner: one strip above the Trace panel's figures that says where the opened trace or training log and the
// scenario disagree (GPU, GPU count, tokens per step, sequence length, model size, precision, attention kernel,
// eager or compiled: core/facts/file_facts.h decides) and offers one button, "Use NVIDIA B200 x 8 from the trace",
// that adopts what the file states in one scenario change (one undo step). Hidden when the file and the scenario agree.
#include <QFrame>
#include <QString>

#include <optional>
#include <vector>

#include "core/facts/file_facts.h"
#include "core/model/hardware_spec.h"

class QLabel;
class QPushButton;

namespace mfu::widgets {

class ScenarioModel;

class FactsBanner : public QFrame {
    Q_OBJECT
public:
    explicit FactsBanner(ScenarioModel* scenario, QWidget* parent = nullptr);

    // The presets a recorded GPU name can be adopted from.
    void setKnownHardware(std::vector<HardwareSpec> hardware);
    // The facts of the file the user looks at (TracePanel: the log on its tab, else the trace); source names it in
    // the text ("the trace", "the log").
    void setFacts(const FileFacts& facts, const QString& source);
    void clearFacts();

    QLabel* message() const { return m_message; }
    QPushButton* useButton() const { return m_use; }

private:
    void refresh();
    void adopt();
    const HardwareSpec* proposedHardware(const FactsCheck& check) const;

    ScenarioModel* m_scenario;
    std::vector<HardwareSpec> m_known;
    std::optional<FileFacts> m_facts;
    QString m_source;
    QLabel* m_message = nullptr;
    QPushButton* m_use = nullptr;
};

} // namespace mfu::widgets
