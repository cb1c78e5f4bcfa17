#pragma once
// The figures of the selected rank on the Trace panel's Breakdown tab, per analysed step: where its steps came from,
// step time, busy, idle, communication and its overlap, kernels, and the GPU the trace names (with its preset).
#include <QGroupBox>

#include <vector>

#include "core/model/hardware_spec.h"
#include "core/trace/analysis.h"

class QVBoxLayout;
class QLabel;

namespace mfu::widgets {

class RankFigures : public QGroupBox {
    Q_OBJECT
public:
    explicit RankFigures(QWidget* parent = nullptr);
    // rank null: every figure is a dash. `known`: the hardware presets the GPU name is matched against.
    void show(const trace::RankAnalysis* rank, const std::vector<HardwareSpec>& known);

private:
    QLabel* m_steps = nullptr;
    QLabel* m_stepTime = nullptr;
    QLabel* m_busy = nullptr;
    QLabel* m_idle = nullptr;
    QLabel* m_comm = nullptr;
    QLabel* m_overlap = nullptr;
    QLabel* m_exposed = nullptr;
    QLabel* m_collectives = nullptr;
    QLabel* m_kernelCount = nullptr;
    QLabel* m_gpu = nullptr;
};

// A selectable, wrapping value label added to a list of figures under its name `label`, named for tests and
// accessibility. The figures are sentences across the box's whole width; a box layout gives each wrapped label the
// height its width needs (QFormLayout, even wrapping all rows, under-estimated it and cut the last lines of a long
// figure, drawing the next row over them).
QLabel* addFigure(QVBoxLayout* list, const QString& label, const char* objectName);
inline constexpr int kFigureGap = 6; // px between one figure's value and the next figure's name

} // namespace mfu::widgets
