#pragma once
// The Trace panel's straggler view across the ranks of a run: each rank's step-time distribution (StepTimeBoxPlot),
// the time each rank spent waiting at collectives for the last rank to arrive, and the collectives with the longest
// waits, naming the rank everyone waited for. Every number is core's (trace::stepTimesPerRank, collectiveWaits):
// the same the CLI's `trace A B C...` prints.
#include <QWidget>

#include "core/trace/analysis.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace mfu::widgets {

class ChartView;
class StepTimeBoxPlot;

class StragglerView : public QWidget {
    Q_OBJECT
public:
    explicit StragglerView(QWidget* parent = nullptr);

    void setRun(const trace::RunAnalysis& run);
    void clear();

    StepTimeBoxPlot* boxPlot() const { return m_boxPlot; }
    ChartView* waitChart() const { return m_waitChart; }
    // Columns: collective #, category, waited for (rank), longest wait (ms), mean wait (ms); longest wait first.
    QStandardItemModel* collectives() const { return m_collectives; }
    QTableView* collectiveView() const { return m_collectiveView; }
    QString summaryText() const;

private:
    StepTimeBoxPlot* m_boxPlot = nullptr;
    ChartView* m_waitChart = nullptr;
    QLabel* m_summary = nullptr;
    QStandardItemModel* m_collectives = nullptr;
    QTableView* m_collectiveView = nullptr;
};

} // namespace mfu::widgets
