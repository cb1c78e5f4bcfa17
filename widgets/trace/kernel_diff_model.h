#pragma once
// The kernel-level baseline diff (after HTA's TraceDiff) as a table: one row per kernel (or memcpy/memset) name of
// either run, all ranks pooled: calls over each run's analysed steps, time per analysed step (each rank's over its
// steps, summed over the ranks) in the baseline and in this run, and the change. The rows are core's
// trace::kernelDiff(), the same the CLI's `trace --compare` prints, already sorted by |change|. Display text is
// formatted; SortRole holds the raw number (the change sorts by its magnitude, so the largest changes either way come
// first, as in core's order).
#include <QAbstractTableModel>

#include <vector>

#include "core/trace/cross_rank.h"

namespace mfu::widgets {

class KernelDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Category, BaselineCalls, Calls, BaselineMs, Ms, ChangeMs, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit KernelDiffModel(QObject* parent = nullptr);

    void setRows(std::vector<trace::KernelDiffRow> rows);
    const std::vector<trace::KernelDiffRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<trace::KernelDiffRow> m_rows;
};

} // namespace mfu::widgets
