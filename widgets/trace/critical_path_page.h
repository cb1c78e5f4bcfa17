#pragma once
// The Trace panel's Critical path tab: for the selected rank, what bounded each analysed step (core/trace/
// critical_path.h: GPU compute, communication, memory copies, launch and host, idle) as stacked bars, and the chain of
// the median step, segment by segment (sortable, so its longest stretches come first on a click).
#include <QWidget>

#include "widgets/trace/trace_selection.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace mfu::widgets {

class ChartView;

class CriticalPathPage : public QWidget {
    Q_OBJECT
public:
    explicit CriticalPathPage(QWidget* parent = nullptr);
    void show(const TraceSelection& selection);
    ChartView* chart() const { return m_chart; }
    QStandardItemModel* chain() const { return m_chain; }
    QString summary() const;

private:
    QLabel* m_summary = nullptr;
    ChartView* m_chart = nullptr;
    QStandardItemModel* m_chain = nullptr;
    QTableView* m_table = nullptr;
};

} // namespace mfu::widgets
