#include "app/scenario_history.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <functional>

#include <nlohmann/json.hpp>

#include "core/scenario/scenario_file.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::app {

namespace {

using widgets::ScenarioModelState;

nlohmann::json toJson(const ScenarioModelState& state)
{
    ScenarioDocument document;
    document.scenario = state.scenario;
    nlohmann::json j = scenarioToJson(document);
    j["editor"] = { { "throughput_input", static_cast<int>(state.throughputInput) },
        { "throughput_value", state.throughputValue } };
    return j;
}

// The JSON paths that differ between two scenarios ("/workload/seq_len /workload/global_batch_tokens"): what a
// change touched, so that repeated edits of one field can be told apart from an edit of another.
std::string changedFields(const nlohmann::json& before, const nlohmann::json& after)
{
    std::string fields;
    for (const auto& operation : nlohmann::json::diff(before, after))
        fields += operation.at("path").get<std::string>() + ' ';
    return fields;
}

class ScenarioEditCommand : public QUndoCommand {
public:
    ScenarioEditCommand(const ScenarioModelState& before, const ScenarioModelState& after, std::string fields,
        std::function<void(const ScenarioModelState&)> apply)
        : m_before(before)
        , m_after(after)
        , m_fields(std::move(fields))
        , m_apply(std::move(apply))
    {
        setText(QObject::tr("scenario edit"));
    }

    int id() const override { return 1; }
    void undo() override { m_apply(m_before); }
    void redo() override
    {
        // QUndoStack::push() calls redo(): the model already holds the new scenario then.
        if (m_pushed)
            m_apply(m_after);
        m_pushed = true;
    }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* next = static_cast<const ScenarioEditCommand*>(other);
        if (next->m_fields != m_fields)
            return false;
        m_after = next->m_after;
        return true;
    }

private:
    ScenarioModelState m_before;
    ScenarioModelState m_after;
    std::string m_fields;
    std::function<void(const ScenarioModelState&)> m_apply;
    bool m_pushed = false;
};

} // namespace

ScenarioHistory::ScenarioHistory(widgets::ScenarioModel* model, QObject* parent)
    : QObject(parent)
    , m_model(model)
    , m_stack(new QUndoStack(this))
    , m_current(model->state())
    , m_currentJson(toJson(m_current))
{
    connect(m_model, &widgets::ScenarioModel::changed, this, &ScenarioHistory::recordChange);
}

void ScenarioHistory::reset()
{
    m_current = m_model->state();
    m_currentJson = toJson(m_current);
    m_stack->clear();
    m_stack->setClean();
}

void ScenarioHistory::markSaved()
{
    m_stack->setClean();
}

void ScenarioHistory::recordChange()
{
    if (m_applying)
        return;
    const ScenarioModelState before = m_current;
    m_current = m_model->state();
    nlohmann::json after = toJson(m_current);
    const std::string fields = changedFields(m_currentJson, after);
    m_currentJson = std::move(after);
    if (fields.empty())
        return; // the editor re-set a value it already had
    m_stack->push(
        new ScenarioEditCommand(before, m_current, fields, [this](const ScenarioModelState& s) { apply(s); }));
}

void ScenarioHistory::apply(const ScenarioModelState& state)
{
    m_applying = true;
    m_model->restore(state);
    m_applying = false;
    m_current = m_model->state();
    m_currentJson = toJson(m_current);
}

} // namespace mfu::app
