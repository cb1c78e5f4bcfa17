#pragma once
// The Trace panel's Top kernels tab: the selected rank's kernels (sortable, filterable, Ctrl+C copies TSV), or with
// a baseline loaded the kernel diff against it (all ranks pooled, as `trace --compare` prints it; a kernel renamed
// between the runs is one row that names both).
#include <QWidget>

#include "widgets/trace/trace_selection.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace mfu::widgets {

class KernelDiffModel;
class TopKernelsModel;

class KernelsPage : public QWidget {
    Q_OBJECT
public:
    explicit KernelsPage(QWidget* parent = nullptr);
    void show(const TraceSelection& selection);
    void copySelected() const;

    TopKernelsModel* kernelModel() const { return m_kernels; }
    KernelDiffModel* diffModel() const { return m_diff; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filter() const { return m_filter; }
    QString note() const;

private:
    TopKernelsModel* m_kernels = nullptr;
    KernelDiffModel* m_diff = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_note = nullptr;
};

} // namespace mfu::widgets
