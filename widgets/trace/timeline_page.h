#pragma once
// The Trace panel's Timeline tab: the selected rank's GPU streams, or every rank stacked on the hosts' clocks.
#include <QWidget>

#include "widgets/trace/trace_selection.h"

class QComboBox;

namespace mfu::widgets {

class TimelineView;

class TimelinePage : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePage(QWidget* parent = nullptr);
    void show(const TraceSelection& selection);
    TimelineView* timeline() const { return m_timeline; }
    // The choice of ranks: the selected one (0) or every rank stacked (1).
    QComboBox* ranks() const { return m_ranks; }

private:
    void refresh();

    TimelineView* m_timeline = nullptr;
    QComboBox* m_ranks = nullptr;
    TraceSelection m_selection;
};

} // namespace mfu::widgets
