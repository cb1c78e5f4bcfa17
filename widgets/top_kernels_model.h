#pragma once
// The top-kernels table: one row per distinct kernel name of a rank, with its category, calls and time. Display
// text is formatted; SortRole holds the raw number so a QSortFilterProxyModel sorts numerically. With a baseline
// run loaded, two more columns compare each kernel per analysed step: its time in the baseline and the change.
#include <QAbstractTableModel>

#include <optional>
#include <vector>

#include "core/trace/analysis.h"

class QItemSelectionModel;

namespace mfu::widgets {

class TopKernelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Category, Calls, TotalMs, MeanUs, MaxUs, Share, ColumnCount };
    // Present only with a baseline (columnCount() grows by two).
    enum BaselineColumn { BaselineMsPerStep = ColumnCount, DeltaMsPerStep };
    static constexpr int SortRole = Qt::UserRole;

    explicit TopKernelsModel(QObject* parent = nullptr);

    void setKernels(std::vector<trace::KernelStat> kernels);
    // Kernels of the baseline's matching rank and the analysed steps of each run (times are compared per step).
    void setBaseline(std::vector<trace::KernelStat> baseline, double baselineSteps, double steps);
    void clearBaseline();
    bool hasBaseline() const { return m_hasBaseline; }
    const std::vector<trace::KernelStat>& kernels() const { return m_kernels; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::optional<double> baselineMsPerStep(const trace::KernelStat& k) const;

    std::vector<trace::KernelStat> m_kernels;
    std::vector<trace::KernelStat> m_baseline;
    bool m_hasBaseline = false;
    double m_baselineSteps = 1;
    double m_steps = 1;
};

// The selected rows of a view's model (any model: a proxy copies what the user sees, in that order) as
// tab-separated text with a header line; all rows when nothing is selected.
QString selectedRowsAsTsv(const QAbstractItemModel* model, const QItemSelectionModel* selection);

} // namespace mfu::widgets
