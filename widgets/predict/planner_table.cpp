#include "widgets/predict/planner_table.h"

#include <QLocale>

#include "core/units.h"

namespace mfu::widgets {

PlannerTableModel::PlannerTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void PlannerTableModel::setPlan(const PlanResult& plan)
{
    beginResetModel();
    m_configs = plan.configs;
    m_evaluated = plan.evaluated;
    endResetModel();
}

int PlannerTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_configs.size());
}

int PlannerTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlannerTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const PlannedConfig& c = m_configs[static_cast<size_t>(index.row())];
    const StepPrediction& p = c.prediction;
    const QLocale locale;
    if (role == SortRole) {
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Layout:
            return QString::fromStdString(describeConfig(c));
        case Mfu:
            return p.mfu;
        case TokensPerSec:
            return p.tokensPerSec;
        case Memory:
            return p.memory.total();
        case StepTime:
            return p.stepTimeSeconds;
        case Reason:
            return QString::fromStdString(c.reason);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Layout:
            return QString::fromStdString(describeConfig(c));
        case Mfu:
            return QStringLiteral("%1%").arg(100.0 * p.mfu, 0, 'f', 1);
        case TokensPerSec:
            return locale.toString(p.tokensPerSec, 'f', 0);
        case Memory:
            return QString::fromStdString(memoryUseText(p)); // as `plan` prints it, headroom included
        case StepTime:
            return QString::number(p.stepTimeSeconds, 'f', 3);
        case Reason:
            return QString::fromStdString(c.reason);
        }
    }
    // Whole in the tooltip: the configuration, the memory and the reason are elided where the table is narrow.
    if (role == Qt::ToolTipRole && (index.column() == Reason || index.column() == Layout || index.column() == Memory))
        return data(index, Qt::DisplayRole);
    if (role == Qt::TextAlignmentRole && index.column() != Layout && index.column() != Reason)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PlannerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Rank:
        return tr("#");
    case Layout:
        return tr("Configuration");
    case Mfu:
        return tr("MFU");
    case TokensPerSec:
        return tr("Tokens/s");
    case Memory:
        return tr("Memory/GPU (GiB)");
    case StepTime:
        return tr("Step (s)");
    case Reason:
        return tr("Why"); // a preview: the selected row's reason is shown in full under the table
    }
    return {};
}

} // namespace mfu::widgets
