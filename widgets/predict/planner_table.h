#pragma once
// The planner's top configurations as a table: rank, layout, predicted MFU, tokens/s, memory per GPU, step time and
// the reason each wins. Sort by any column (numbers sort as numbers through Qt::UserRole); config(row) returns the
// configuration behind a source row so "Apply" can hand it to the scenario.
#include <QAbstractTableModel>

#include <vector>

#include "core/costmodel/planner.h"

namespace mfu::widgets {

class PlannerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Layout, Mfu, TokensPerSec, Memory, StepTime, Reason, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit PlannerTableModel(QObject* parent = nullptr);

    void setPlan(const PlanResult& plan);
    const PlannedConfig& config(int row) const { return m_configs.at(static_cast<size_t>(row)); }
    int64_t evaluated() const { return m_evaluated; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<PlannedConfig> m_configs;
    int64_t m_evaluated = 0;
};

} // namespace mfu::widgets
