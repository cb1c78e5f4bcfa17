#pragma once
// StartPanel: the "Start here" page. It says in a sentence what each panel answers and offers the sources' worked
// examples as one-click demos: each demo sets the shared scenario (from presets, so every figure on screen is still
// computed by core) and asks the window to show the panel that answers it.
#include <QWidget>

#include <functional>

#include "core/presets/presets.h"

namespace mfu::widgets {

class ScenarioModel;

class StartPanel : public QWidget {
    Q_OBJECT
public:
    enum class Demo {
        Llama8BOnOneB200, // Llama 3.1 8B on one B200, 21,111 tokens/s: 54.3% MFU
        SevenBOnEightH100, // a bare 7B model on 8 x H100, 8 x 4,096 tokens in 1.2 s: 14.5% MFU
        Llama70BTorchTitanDefault // Llama 3.1 70B on 16 x B200 with TorchTitan's default TP 8 + full AC
    };

    // The panel that answers a demo; the window maps it to its tab (never by the translated tab title).
    enum class Panel { Calculator, Predict };
    Q_ENUM(Panel)

    StartPanel(ScenarioModel& scenario, const PresetLibrary& presets, QWidget* parent = nullptr);

    // Applies a demo; returns false (and says why in demoFailed) when a preset it needs is missing, or when the gate
    // says no (the user kept the work the demo would replace).
    bool runDemo(Demo demo);
    // Asked before a demo replaces the scenario and closes the files beside it: true to go on. The window asks about
    // unsaved changes and loaded files here; without a gate a demo always goes on.
    void setDemoGate(std::function<bool()> gate) { m_gate = std::move(gate); }

signals:
    void showPanel(mfu::widgets::StartPanel::Panel panel); // the panel that answers the demo
    void demoFailed(const QString& reason);
    // Before a demo sets the scenario: whatever the window holds beside it (traces, a baseline, a training log) is
    // to be closed, so nothing of an earlier session is read against the demo's scenario.
    void demoStarting();
    // After a demo has set the scenario: it is a new document.
    void demoApplied();

private:
    ScenarioModel& m_scenario;
    const PresetLibrary& m_presets;
    std::function<bool()> m_gate;
};

} // namespace mfu::widgets
