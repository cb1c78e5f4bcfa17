#pragma once
// The top-kernels table: one row per distinct kernel name of a rank, with its category, calls and time. Display
// text is formatted; SortRole holds the raw number so a QSortFilterProxyModel sorts numerically. The comparison with
// a baseline run is KernelDiffModel's (core's kernelDiff), which the Trace panel shows instead when one is loaded.
#include <QAbstractTableModel>

#include <vector>

#include "core/trace/analysis.h"

class QItemSelectionModel;

namespace mfu::widgets {

class TopKernelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Category, Calls, TotalMs, MeanUs, MaxUs, Share, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit TopKernelsModel(QObject* parent = nullptr);

    void setKernels(std::vector<trace::KernelStat> kernels);
    const std::vector<trace::KernelStat>& kernels() const { return m_kernels; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<trace::KernelStat> m_kernels;
};

// The selected rows of a view's model (any model: a proxy copies what the user sees, in that order) as
// tab-separated text with a header line; all rows when nothing is selected.
QString selectedRowsAsTsv(const QAbstractItemModel* model, const QItemSelectionModel* selection);

} // namespace mfu::widgets
