#pragma once
// ScenarioEditor: the inputs of the window's scenario (model, GPU, GPU count, precision, sequence, batch, measured
// throughput). It writes every valid edit into the ScenarioModel; an invalid one is explained next to its field and
// leaves the model as it was. Presets come from the PresetLibrary it is given (the application's embedded + user
// presets); imported config.json models join the model list.
#include <QString>
#include <QWidget>

#include <vector>

#include "core/model/model_spec.h"
#include "core/presets/presets.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QPushButton;

namespace mfu::widgets {

class ScenarioModel;

class ScenarioEditor : public QWidget {
    Q_OBJECT
public:
    ScenarioEditor(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent = nullptr);

    // Imports a Hugging Face config.json, adds it to the model list and selects it. On failure returns false and
    // sets *error to a message that names the file and the problem.
    bool importModelConfig(const QString& path, QString* error);

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
    void onSeqLenEdited();
    void onThroughputEdited();
    void importFromDialog();
    void showReason(QLabel* reason, QWidget* field, const QString& text);
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
    QComboBox* m_precisionCombo = nullptr;
    QLineEdit* m_seqLen = nullptr;
    QSpinBox* m_microBatch = nullptr;
    QSpinBox* m_gradAccum = nullptr;
    QComboBox* m_throughputMode = nullptr;
    QLineEdit* m_throughputValue = nullptr;
    QLabel* m_tokensPerStep = nullptr;
    QLabel* m_modelReason = nullptr;
    QLabel* m_precisionReason = nullptr;
    QLabel* m_seqLenReason = nullptr;
    QLabel* m_throughputReason = nullptr;
};

// Reads "21111", "21,111", "21 111" or "2.1e4" (commas and spaces as digit grouping); nullopt when not a number.
std::optional<double> parseGroupedNumber(const QString& text);

} // namespace mfu::widgets
