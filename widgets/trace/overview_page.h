#pragma once
// The Trace panel's Breakdown tab: the selected rank's figures and the three MFUs on the left, the stacked category
// breakdown per step and, with a baseline loaded, the comparison (which run is faster, both GPUs named when they
// differ) on the right.
#include <QWidget>

#include <vector>

#include "core/model/hardware_spec.h"
#include "widgets/trace/trace_charts.h"
#include "widgets/trace/trace_selection.h"

class QLabel;

namespace mfu::widgets {

class ChartView;
class MfuFigures;
class RankFigures;
class ScenarioModel;

class OverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPage(ScenarioModel* scenario, QWidget* parent = nullptr);
    void setKnownHardware(const std::vector<HardwareSpec>& hardware);
    void show(const TraceSelection& selection, BreakdownUnit unit);
    MfuFigures* mfu() const { return m_mfu; }
    ChartView* stepChart() const { return m_stepChart; }
    ChartView* comparisonChart() const { return m_comparisonChart; }

private:
    void showComparison(const TraceSelection& selection);

    std::vector<HardwareSpec> m_known;
    RankFigures* m_figures = nullptr;
    MfuFigures* m_mfu = nullptr;
    ChartView* m_stepChart = nullptr;
    ChartView* m_comparisonChart = nullptr;
    QLabel* m_verdict = nullptr; // which run is faster, above the comparison chart
    QLabel* m_comparisonHint = nullptr; // shown instead of an empty comparison chart
};

} // namespace mfu::widgets
