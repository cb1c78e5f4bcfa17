#include "widgets/trace/top_kernels_model.h"

#include <QItemSelectionModel>
#include <QLocale>

#include <algorithm>

#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

TopKernelsModel::TopKernelsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void TopKernelsModel::setKernels(std::vector<trace::KernelStat> kernels)
{
    beginResetModel();
    m_kernels = std::move(kernels);
    endResetModel();
}

int TopKernelsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_kernels.size());
}

int TopKernelsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopKernelsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const trace::KernelStat& k = m_kernels[static_cast<size_t>(index.row())];
    const double totalMs = static_cast<double>(k.totalNs) / 1e6;
    const double meanUs = k.count > 0 ? static_cast<double>(k.totalNs) / 1e3 / static_cast<double>(k.count) : 0.0;
    const double maxUs = static_cast<double>(k.maxNs) / 1e3;
    const QLocale locale;
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(k.name);
        case Category:
            return categoryLabel(trace::categoryKey(k.category));
        case Calls:
            return static_cast<qlonglong>(k.count);
        case TotalMs:
            return totalMs;
        case MeanUs:
            return meanUs;
        case MaxUs:
            return maxUs;
        case Share:
            return k.shareOfKernelTime;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(k.name);
        case Category:
            return categoryLabel(trace::categoryKey(k.category));
        case Calls:
            return locale.toString(static_cast<qlonglong>(k.count));
        case TotalMs:
            return locale.toString(totalMs, 'f', 3);
        case MeanUs:
            return locale.toString(meanUs, 'f', 1);
        case MaxUs:
            return locale.toString(maxUs, 'f', 1);
        case Share:
            return locale.toString(k.shareOfKernelTime * 100, 'f', 2);
        }
    }
    if (role == Qt::DecorationRole && index.column() == Category)
        return categoryColour(k.category); // the swatch of the charts and the timeline (category_palette.h)
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(k.name); // names run to hundreds of characters (templated CUTLASS kernels)
    if (role == Qt::TextAlignmentRole && index.column() >= Calls)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant TopKernelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Share)
        return tr("Share of the rank's kernel time over its analysed steps, per cent");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Kernel");
    case Category:
        return tr("Category");
    case Calls:
        return tr("Calls");
    case TotalMs:
        return tr("Total (ms)");
    case MeanUs:
        return tr("Mean (µs)");
    case MaxUs:
        return tr("Max (µs)");
    case Share:
        return tr("Share (%)"); // short: a long header took the width the kernel names need
    }
    return {};
}

QString selectedRowsAsTsv(const QAbstractItemModel* model, const QItemSelectionModel* selection)
{
    QList<int> rows;
    if (selection)
        for (const QModelIndex& index : selection->selectedIndexes())
            if (!rows.contains(index.row()))
                rows << index.row();
    if (rows.isEmpty())
        for (int r = 0; r < model->rowCount(); ++r)
            rows << r;
    std::sort(rows.begin(), rows.end());
    // Tabs and newlines inside a cell would break the columns a spreadsheet sees.
    auto clean = [](QString s) {
        return s.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
    };
    QStringList lines;
    QStringList header;
    for (int c = 0; c < model->columnCount(); ++c)
        header << clean(model->headerData(c, Qt::Horizontal).toString());
    lines << header.join(QLatin1Char('\t'));
    for (int r : rows) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(); ++c)
            cells << clean(model->data(model->index(r, c)).toString());
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace mfu::widgets
