#pragma once
// ScenarioEditor: the inputs of the window's scenario (model, GPU, GPU count, precision, sequence, batch, measured
// throughput). A field commits on Enter or focus-out and writes a valid value into the ScenarioModel; until then, and
// for an invalid value (explained next to its field while typing), the model keeps its last valid value. Numbers
// take the units people type ("32k", "1.5M"); sequence length and measured throughput are bounded to what is
// physically possible, and switching "Measured as" converts the value. Presets come from the PresetLibrary it is given
// (the application's embedded + user presets); imported config.json models join the model list.
#include <QList>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/model_spec.h"
#include "core/model/packing.h"
#include "core/presets/presets.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QPushButton;

namespace mfu::widgets {

class BoundedSpinBox;
class EntryReason;
class ReasonLabel;
class ScenarioModel;

class ScenarioEditor : public QWidget {
    Q_OBJECT
public:
    ScenarioEditor(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent = nullptr);
    ~ScenarioEditor() override;

    // Imports a Hugging Face config.json, adds it to the model list and selects it. On failure returns false and
    // sets *error to a message that names the file and the problem.
    bool importModelConfig(const QString& path, QString* error);

    // Reads a file of document lengths (core/model/packing.h: a JSON array or object, or CSV) into the scenario's
    // packing. On failure returns false and sets *error to a message naming the file and the problem.
    bool loadDocumentLengths(const QString& path, QString* error);

    // The reason shown next to a field ("" when valid); fields are named by their objectName.
    QString validationReason(const QString& fieldName) const;

signals:
    void statusMessage(const QString& message);

private:
    void buildUi();
    void syncFromModel();
    void selectModelById(const QString& id);
    void syncHardware(const HardwareSpec& hardware); // signals already blocked by the caller
    void onModelChosen(int index);
    void onHardwareChosen(int index);
    // Validate while typing (the reason under the field), commit on Enter or focus-out.
    std::optional<int64_t> checkSeqLen();
    void commitSeqLen();
    std::optional<double> checkThroughput();
    void commitThroughput();
    void onThroughputModeChosen();
    void importFromDialog();
    void loadDocumentLengthsFromDialog();
    // Packing edits: a candidate checked against the sequence length before it reaches the model.
    void commitPacking(const SequencePacking& candidate);
    void updateDerivedTexts();

    ScenarioModel* m_model;
    const PresetLibrary& m_presets;
    std::vector<ModelSpec> m_imported;
    std::vector<HardwareSpec> m_importedHardware; // from scenario files, when not among the presets
    std::vector<std::optional<CostModelConstants>> m_importedCostModels; // the file's constants for each

    QComboBox* m_modelCombo = nullptr;
    QPushButton* m_importButton = nullptr;
    QComboBox* m_hardwareCombo = nullptr;
    QSpinBox* m_gpuCount = nullptr;
    // The cluster's network per GPU in Gb/s, fractions too ("none stated" where the GPU has no preset one).
    BoundedSpinBox* m_network = nullptr;
    QComboBox* m_precisionCombo = nullptr;
    QLineEdit* m_seqLen = nullptr;
    QSpinBox* m_documentLength = nullptr;
    QPushButton* m_documentFile = nullptr;
    QComboBox* m_attentionMask = nullptr;
    QSpinBox* m_padding = nullptr;
    QLabel* m_packingSummary = nullptr;
    ReasonLabel* m_packingReason = nullptr;
    QList<EntryReason*> m_entryReasons; // the count, network, padding and document fields' refusals
    QSpinBox* m_microBatch = nullptr;
    QSpinBox* m_gradAccum = nullptr;
    QComboBox* m_throughputMode = nullptr;
    QLineEdit* m_throughputValue = nullptr;
    QLabel* m_tokensPerStep = nullptr;
    ReasonLabel* m_modelReason = nullptr;
    ReasonLabel* m_precisionReason = nullptr;
    ReasonLabel* m_seqLenReason = nullptr;
    ReasonLabel* m_throughputReason = nullptr;
};

// Reads "21111", "21,111", "21 111", "2.1e4", "32k" or "1.5M" (core/number_parse.h); nullopt when not a number.
std::optional<double> parseGroupedNumber(const QString& text);

} // namespace mfu::widgets
