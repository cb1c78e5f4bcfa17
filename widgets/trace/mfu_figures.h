#pragma once
// MFU on the Trace panel's Breakdown tab, three ways: measured (the trace's step time with the scenario's model,
// tokens per step, GPU count and GPU), the trace's own (the FLOPs its operators' recorded shapes give, no model
// needed: core/trace/trace_mfu.h), and the cost model's prediction for the scenario. When the first two differ by
// more than 15%, what may explain it; a measured figure the scenario cannot stand behind is withheld with the fact
// that disagrees named, and a prediction for a layout that does not fit in memory says so instead of an MFU.
#include <QGroupBox>

#include <vector>

#include "core/facts/file_facts.h"
#include "core/model/hardware_spec.h"
#include "core/scenario/scenario.h"
#include "widgets/trace/trace_selection.h"

class QLabel;

namespace mfu::widgets {

class ScenarioModel;

class MfuFigures : public QGroupBox {
    Q_OBJECT
public:
    explicit MfuFigures(ScenarioModel* scenario, QWidget* parent = nullptr);
    void setKnownHardware(std::vector<HardwareSpec> hardware) { m_known = std::move(hardware); }
    void show(const TraceSelection& selection);
    // Recomputes from the scenario (its model, batch or GPU changed).
    void refresh();

private:
    void showMeasured(const Scenario& s, double tokens, const FactsCheck& check);
    void showTraceMfu();
    // "\nFor the scenario, not this trace's run: they differ in GPU, tokens per step (...)"; empty when they agree.
    QString scenarioDiffersFromTrace(const FactsCheck& check) const;
    void showPredicted(const Scenario& s, const FileFacts& facts, const FactsCheck& check);
    void showCheck();

    ScenarioModel* m_scenario;
    std::vector<HardwareSpec> m_known;
    TraceSelection m_selection;
    QLabel* m_measured = nullptr;
    QLabel* m_trace = nullptr;
    QLabel* m_check = nullptr;
    QLabel* m_predicted = nullptr;
    QLabel* m_note = nullptr;
    std::optional<double> m_measuredMfu; // on the trace's GPU (shown, or withheld only as impossible)
    std::string m_countedDifferences; // the facts it counted with the scenario's values (ShownMfu)
    std::optional<double> m_traceMfu;
};

} // namespace mfu::widgets
