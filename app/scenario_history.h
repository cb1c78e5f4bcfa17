#pragma once
// ScenarioHistory: undo/redo of the window's scenario. It watches the ScenarioModel and turns every change into an
// undo command holding the whole model state before and after: the scenario with the editor inputs it derives from,
// such as the throughput input mode (a scenario is small, and restoring it whole cannot miss a derived field).
// Consecutive changes of the same fields merge, so dragging a spin box is one undo step. Changes made by undo/redo
// themselves, and scenarios loaded with reset(), are not recorded.
#include <QObject>

#include <nlohmann/json.hpp>

#include "widgets/scenario/scenario_model.h"

class QUndoStack;

namespace mfu::app {

class ScenarioHistory : public QObject {
    Q_OBJECT
public:
    explicit ScenarioHistory(widgets::ScenarioModel* model, QObject* parent = nullptr);

    QUndoStack* stack() const { return m_stack; }
    // Forgets the history and takes the model's current scenario as the clean (saved) state: after an open.
    void reset();
    // The current scenario is what is on disk now: after a save.
    void markSaved();

private:
    void recordChange();
    void apply(const widgets::ScenarioModelState& state);

    widgets::ScenarioModel* m_model;
    QUndoStack* m_stack;
    widgets::ScenarioModelState m_current; // the model's state as last seen, the "before" of the next change
    nlohmann::json m_currentJson; // m_current as JSON, kept so each change serializes the scenario once
    bool m_applying = false;
};

} // namespace mfu::app
