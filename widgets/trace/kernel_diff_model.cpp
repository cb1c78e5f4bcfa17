#include "widgets/trace/kernel_diff_model.h"

#include <QLocale>

#include <cmath>
#include <cstdlib>

#include "widgets/charts/category_palette.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

// Per analysed step (trace::KernelDiffRow): runs profiled over different step counts compare only so.
double milliseconds(double ns)
{
    return ns / 1e6;
}

} // namespace

KernelDiffModel::KernelDiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void KernelDiffModel::setRows(std::vector<trace::KernelDiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int KernelDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KernelDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const trace::KernelDiffRow& k = m_rows[static_cast<size_t>(index.row())];
    const QLocale locale;
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(k.name);
        case Category:
            return categoryLabel(k.category);
        case BaselineCalls:
            return static_cast<qlonglong>(k.baselineCount);
        case Calls:
            return static_cast<qlonglong>(k.optimisedCount);
        case BaselineMs:
            return milliseconds(k.baselineNsPerStep);
        case Ms:
            return milliseconds(k.optimisedNsPerStep);
        case ChangeMs:
            return milliseconds(std::abs(k.deltaNsPerStep()));
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name: // a kernel renamed between the runs: both names, so the row is read as one kernel
            return k.baselineName.empty()
                ? QString::fromStdString(k.name)
                : tr("%1 (in the baseline: %2)")
                      .arg(QString::fromStdString(k.name), QString::fromStdString(k.baselineName));
        case Category:
            return categoryLabel(k.category);
        case BaselineCalls:
            return locale.toString(static_cast<qlonglong>(k.baselineCount));
        case Calls:
            return locale.toString(static_cast<qlonglong>(k.optimisedCount));
        case BaselineMs:
            return locale.toString(milliseconds(k.baselineNsPerStep), 'f', 3);
        case Ms:
            return locale.toString(milliseconds(k.optimisedNsPerStep), 'f', 3);
        case ChangeMs: {
            const QString text = locale.toString(milliseconds(k.deltaNsPerStep()), 'f', 3);
            return k.deltaNsPerStep() > 0 ? QLatin1Char('+') + text : text;
        }
        }
    }
    if (role == Qt::DecorationRole && index.column() == Category)
        return categoryColour(k.category); // the swatch of the charts and the timeline (category_palette.h)
    if (role == Qt::ToolTipRole) {
        if (index.column() == Name) // names run to hundreds of characters (templated CUTLASS kernels)
            return k.baselineName.empty()
                ? QString::fromStdString(k.name)
                : tr("This run: %1\nBaseline: %2")
                      .arg(QString::fromStdString(k.name), QString::fromStdString(k.baselineName));
        if (index.column() == ChangeMs)
            return k.baselineCount == 0 ? tr("Not run in the baseline")
                : k.optimisedCount == 0 ? tr("Not run in this run")
                                        : tr("This run's time per step minus the baseline's");
    }
    if (role == Qt::TextAlignmentRole && index.column() >= BaselineCalls)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant KernelDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Kernel");
    case Category:
        return tr("Category");
    case BaselineCalls:
        return tr("Baseline calls");
    case Calls:
        return tr("Calls");
    case BaselineMs:
        return tr("Baseline (ms/step)");
    case Ms:
        return tr("This run (ms/step)");
    case ChangeMs:
        return tr("Change (ms/step)");
    }
    return {};
}

} // namespace mfu::widgets
