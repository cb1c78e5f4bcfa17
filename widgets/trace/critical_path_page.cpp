#include "widgets/trace/critical_path_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/number_format.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

QStandardItem* number(double value, int decimals)
{
    auto* item = new QStandardItem(QLocale().toString(value, 'f', decimals));
    item->setData(value, Qt::UserRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QStandardItem* text(const QString& value)
{
    auto* item = new QStandardItem(value);
    item->setData(value, Qt::UserRole);
    item->setToolTip(value);
    return item;
}

QString label(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString kindLabel(trace::PathKind kind)
{
    switch (kind) {
    case trace::PathKind::Kernel:
        return QObject::tr("GPU");
    case trace::PathKind::Launch:
        return QObject::tr("launch");
    case trace::PathKind::Host:
        return QObject::tr("host");
    case trace::PathKind::Sync:
        return QObject::tr("synchronisation");
    case trace::PathKind::Idle:
        return QObject::tr("idle");
    }
    return {};
}

} // namespace

CriticalPathPage::CriticalPathPage(QWidget* parent)
    : QWidget(parent)
    , m_chain(new QStandardItemModel(this))
{
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("criticalPathSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart = new ChartView;
    m_chart->setObjectName(QStringLiteral("criticalPathChart"));
    m_chart->setAccessibleName(tr("What bounded each step"));
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_chain);
    proxy->setSortRole(Qt::UserRole);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("criticalPathTable"));
    m_table->setAccessibleName(tr("The critical path of the median step"));
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    show({});
}

QString CriticalPathPage::summary() const
{
    return m_summary->text();
}

void CriticalPathPage::show(const TraceSelection& selection)
{
    m_chain->clear();
    m_chain->setHorizontalHeaderLabels(
        { tr("At (ms)"), tr("Duration (ms)"), tr("Bounded by"), tr("What"), tr("Segments"), tr("Name") });
    const trace::RankAnalysis* rank = selection.selectedRank();
    if (!rank || rank->criticalPath.steps.empty()) {
        m_chart->clearSeries();
        m_chart->setTitle(tr("What bounded each step"));
        m_summary->setText(rank ? tr("No analysed step: nothing to trace a path through.")
                                : tr("Open a trace to see what bounded each of its steps: the chain of kernels, "
                                     "launches, host work and synchronisations its time ran along."));
        return;
    }
    const trace::CriticalPath& path = rank->criticalPath;
    fillCriticalPathChart(m_chart, path);
    const int64_t origin = path.chain.empty() ? 0 : path.chain.front().startNs;
    for (const auto& seg : path.chain) {
        QList<QStandardItem*> row { number(static_cast<double>(seg.startNs - origin) / 1e6, 3),
            number(static_cast<double>(seg.durationNs()) / 1e6, 3), text(label(trace::pathShareLabel(seg.share()))),
            text(kindLabel(seg.kind)), number(static_cast<double>(seg.count), 0),
            text(QString::fromStdString(path.labelOf(seg))) };
        row[2]->setData(pathShareColour(seg.share()), Qt::DecorationRole);
        for (auto* item : row)
            item->setEditable(false);
        m_chain->appendRow(row);
    }
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    QStringList shares;
    for (int k = 0; k < trace::kPathShareCount; ++k) {
        const auto share = static_cast<trace::PathShare>(k);
        if (path.total.shareNs[static_cast<size_t>(k)] > 0)
            shares << QStringLiteral("%1 %2").arg(
                label(trace::pathShareLabel(share)), QString::fromStdString(formatPercent(path.total.share(share))));
    }
    m_summary->setText(tr("Rank %1, %n analysed step(s): %2. The table is the chain of step #%3, the median one: "
                          "each stretch of its time and what held it (a kernel, its launch, host work between "
                          "launches, a synchronisation's wake-up, or nothing); sort by duration for the longest.",
        nullptr, static_cast<int>(path.steps.size()))
                           .arg(rank->rank)
                           .arg(shares.join(QStringLiteral(", ")))
                           .arg(path.chainStep));
}

} // namespace mfu::widgets
