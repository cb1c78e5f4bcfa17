#pragma once
// The Trace panel's Ranks tab: per rank its GPU, steps, mean step and spread, busy and idle shares and exposed
// communication, with the slowest rank named.
#include <QWidget>

#include "widgets/trace/trace_selection.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace mfu::widgets {

class RanksPage : public QWidget {
    Q_OBJECT
public:
    explicit RanksPage(QWidget* parent = nullptr);
    void show(const TraceSelection& selection);
    QStandardItemModel* table() const { return m_ranks; }

private:
    QStandardItemModel* m_ranks = nullptr;
    QLabel* m_slowest = nullptr;
    QTableView* m_view = nullptr;
    static constexpr int kFileColumn = 8;
};

} // namespace mfu::widgets
