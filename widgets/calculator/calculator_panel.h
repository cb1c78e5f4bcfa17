#pragma once
// Calculator panel: for the window's scenario, the FLOP/token formulas side by side with their terms, the
// per-component breakdown, observed TFLOPS, MFU and HFU, the diagnosis findings, and a chart of each formula's
// FLOP/token across sequence length. Every figure comes from core (countParameters, countFlopsPerToken,
// computeMfu, diagnose); this class only lays them out.
#include <QWidget>

#include "core/presets/presets.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QStandardItemModel;
class QTableView;
class QListView;

namespace mfu::widgets {

class ChartView;
class ScenarioModel;

class CalculatorPanel : public QWidget {
    Q_OBJECT
public:
    CalculatorPanel(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent = nullptr);

    ChartView* chart() const { return m_chart; }
    QStandardItemModel* formulaTable() const { return m_formulas; }
    QStandardItemModel* componentTable() const { return m_components; }
    QStandardItemModel* findings() const { return m_findings; }
    // True when every figure shown is the newest scenario's.
    bool figuresCurrent() const;

private:
    void recompute();
    void updateTerms();
    void updateResults();
    void updateChart();
    void updateFindings();
    QLabel* addValue(QFormLayout* form, const QString& label, const char* objectName);

    ScenarioModel* m_model;
    const PresetLibrary& m_presets;

    QLabel* m_error = nullptr;
    QLabel* m_params = nullptr;
    QLabel* m_embedding = nullptr;
    QLabel* m_nonEmbedding = nullptr;
    QLabel* m_active = nullptr;
    QLabel* m_shape = nullptr; // L, H, Q
    QLabel* m_seqLen = nullptr;
    QLabel* m_throughput = nullptr;
    QLabel* m_flopsPerToken = nullptr;
    QComboBox* m_formulaChoice = nullptr; // the one setting MFU's formula, for the whole window
    QLabel* m_tflops = nullptr;
    QLabel* m_peak = nullptr;
    QLabel* m_mfu = nullptr;
    QLabel* m_mfuReason = nullptr; // why an MFU above 100% is impossible, in the error colour
    QLabel* m_hfu = nullptr;
    QLabel* m_mfuOverPacking = nullptr; // a packed run's MFU with attention counted over the packing length
    QLabel* m_mfuWithVision = nullptr; // a vision-language run's MFU counting the vision encoder too
    QLabel* m_visionEncoder = nullptr; // the vision encoder's parameters, outside N
    class QFormLayout* m_resultsForm = nullptr;
    class QFormLayout* m_termsForm = nullptr;
    QStandardItemModel* m_formulas = nullptr;
    QStandardItemModel* m_components = nullptr;
    QStandardItemModel* m_findings = nullptr;
    ChartView* m_chart = nullptr;
};

} // namespace mfu::widgets
