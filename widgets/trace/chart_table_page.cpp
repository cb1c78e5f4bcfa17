#include "widgets/trace/chart_table_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/charts/chart_view.h"

namespace mfu::widgets {

ChartTablePage buildChartTablePage(QWidget* page, QStandardItemModel* model, const ChartTableNames& names)
{
    ChartTablePage parts;
    parts.summary = new QLabel;
    parts.summary->setObjectName(names.prefix + QStringLiteral("Summary"));
    parts.summary->setWordWrap(true);
    parts.summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    parts.chart = new ChartView;
    parts.chart->setObjectName(names.prefix + QStringLiteral("Chart"));
    parts.chart->setAccessibleName(names.chart);
    auto* proxy = new QSortFilterProxyModel(page);
    proxy->setSourceModel(model);
    proxy->setSortRole(Qt::UserRole);
    parts.table = new QTableView;
    parts.table->setObjectName(names.prefix + QStringLiteral("Table"));
    parts.table->setAccessibleName(names.table);
    parts.table->setModel(proxy);
    parts.table->setSortingEnabled(true);
    parts.table->setSelectionBehavior(QAbstractItemView::SelectRows);
    parts.table->setWordWrap(false);
    parts.table->verticalHeader()->setVisible(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(parts.chart);
    split->addWidget(parts.table);
    split->setStretchFactor(0, names.chartStretch);
    split->setStretchFactor(1, names.tableStretch);
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(parts.summary);
    layout->addWidget(split, 1);
    return parts;
}

QStandardItem* sortableNumber(double value, int decimals)
{
    auto* item = new QStandardItem(QLocale().toString(value, 'f', decimals));
    item->setData(value, Qt::UserRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QStandardItem* sortableText(const QString& value)
{
    auto* item = new QStandardItem(value);
    item->setData(value, Qt::UserRole);
    item->setToolTip(value);
    item->setEditable(false);
    return item;
}

} // namespace mfu::widgets
