#pragma once
// ParallelismEditor: how the scenario runs - TP (with SP and async TP), PP (virtual stages, schedule, uneven stages and
// Megatron's layout string), CP, EP with expert TP, the MoE dispatcher, overlap and routing balance, HSDP replicas,
// micro-batch, global batch in tokens, MTP layers, activation checkpointing (with Megatron's recompute modules and
// layer count), the FP8 recipe and the framework flags Lambda's MFU paper names. Every edit is checked by the cost
// model (CostModel::invalidReason) before it reaches the ScenarioModel; an edit that cannot be laid out is explained
// next to its field and leaves the scenario as it was. Spin boxes apply on every step (arrows, wheel, dragging), typed
// numbers on Enter, so panels follow the control while it moves.
#include <QHash>
#include <QString>
#include <QWidget>

#include <functional>
#include <vector>

#include "core/scenario/scenario.h"
#include "core/scenario/settings.h"

class QFormLayout;
class QLabel;

namespace mfu::widgets {

class EntryReason;
class QuantitySpinBox;
class ReasonLabel;
class ScenarioModel;

class ParallelismEditor : public QWidget {
    Q_OBJECT
public:
    explicit ParallelismEditor(ScenarioModel* model, QWidget* parent = nullptr);

    // The reason shown next to a field ("" when its last edit was accepted); fields are named by objectName.
    QString validationReason(const QString& fieldName) const;

private:
    using Write = std::function<void(Scenario&, int)>;
    using Read = std::function<int(const Scenario&)>;
    // Text fields (the pipeline layout, the recompute modules): written from the text, throwing InputError with
    // what is wrong in it.
    using WriteText = std::function<void(Scenario&, const QString&)>;
    using ReadText = std::function<QString(const Scenario&)>;
    struct Field {
        QWidget* widget = nullptr;
        ReasonLabel* reason = nullptr;
        EntryReason* entry = nullptr; // a spin box's refused text (attachEntryReason), on the same label
        Read read;
        Write write;
        ReadText readText;
        WriteText writeText;
    };

    void buildUi();
    // The field of one table setting (core/scenario/settings.h): a spin box, list, check box or text field by kind.
    void addSetting(QFormLayout* form, const Setting& setting);
    void addEmbeddingAndLossStages(QFormLayout* form);
    void addPackingAndVision(QFormLayout* form);
    void addSpin(QFormLayout* form, const char* name, const QString& label, const QString& accessible, int min, int max,
        Read read, Write write);
    void addCombo(QFormLayout* form, const char* name, const QString& label, const QString& accessible,
        const std::vector<std::pair<QString, int>>& items, Read read, Write write);
    void addCheck(
        QFormLayout* form, const char* name, const QString& text, const QString& accessible, Read read, Write write);
    void addText(QFormLayout* form, const char* name, const QString& label, const QString& accessible,
        const QString& placeholder, ReadText read, WriteText write);
    void editText(const QString& name, const QString& text);
    Field& addField(QFormLayout* form, const char* name, const QString& label, QWidget* widget, Read read, Write write);
    void edit(const QString& name, int value);
    void syncFromModel();
    // The field back to the scenario's value, its reason cleared (Escape).
    void restore(Field& field);
    // What a spin box takes, as its refusal says: its range and the value the scenario keeps meanwhile.
    QString rangeRule(const QuantitySpinBox* spin) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    ScenarioModel* m_model;
    QHash<QString, Field> m_fields;
    QStringList m_order; // tab order
};

// Why a scenario cannot be evaluated, "" when it can (the cost model's own check, or why the model is unusable).
QString scenarioProblem(const Scenario& scenario);
// Why an edit from `before` to `after` cannot be taken: after's problem, when before had none. A layout broken
// elsewhere (a GPU count that PP x CP no longer divides, a file) does not block the edits that mend it in steps, nor
// the others; the panel says why it cannot be laid out meanwhile.
QString problemIntroduced(const Scenario& before, const Scenario& after);

} // namespace mfu::widgets
