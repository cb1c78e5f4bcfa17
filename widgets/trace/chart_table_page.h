#pragma once
// What the Trace panel's Roofline and Critical path tabs share: a wrapped summary line over a chart and a sortable
// table in a vertical splitter, and table cells that sort by their value rather than their text ("1,024" after
// "999" as numbers, not as strings).
#include <QString>

class QLabel;
class QStandardItem;
class QStandardItemModel;
class QTableView;
class QWidget;

namespace mfu::widgets {

class ChartView;

struct ChartTablePage {
    QLabel* summary = nullptr;
    ChartView* chart = nullptr;
    QTableView* table = nullptr;
};

struct ChartTableNames {
    QString prefix; // object names: prefix + "Summary", "Chart", "Table"
    QString chart; // accessible names
    QString table;
    int chartStretch = 1; // the splitter's share of the height for each
    int tableStretch = 1;
};

// Lays the parts out on `page` (which takes a QVBoxLayout) over `model`, sorted by Qt::UserRole.
ChartTablePage buildChartTablePage(QWidget* page, QStandardItemModel* model, const ChartTableNames& names);

// A right-aligned, read-only number with its value as the sort key.
QStandardItem* sortableNumber(double value, int decimals);
// A read-only text with itself as the sort key and as the tooltip (long shapes and kernel names are cut in the column).
QStandardItem* sortableText(const QString& value);

} // namespace mfu::widgets
