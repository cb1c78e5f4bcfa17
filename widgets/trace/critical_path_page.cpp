#include "widgets/trace/critical_path_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QStandardItemModel>
#include <QTableView>

#include "core/number_format.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/chart_table_page.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

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
    const ChartTablePage parts = buildChartTablePage(this, m_chain,
        { QStringLiteral("criticalPath"), tr("What bounded each step"), tr("The critical path of the median step"), 2,
            3 });
    m_summary = parts.summary;
    m_chart = parts.chart;
    m_table = parts.table;
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
        QList<QStandardItem*> row { sortableNumber(static_cast<double>(seg.startNs - origin) / 1e6, 3),
            sortableNumber(static_cast<double>(seg.durationNs()) / 1e6, 3),
            sortableText(label(trace::pathShareLabel(seg.share()))), sortableText(kindLabel(seg.kind)),
            sortableNumber(static_cast<double>(seg.count), 0),
            sortableText(QString::fromStdString(path.labelOf(seg))) };
        // A kernel's swatch is its own category's, as in every other view (a Triton elementwise kernel is not a GEMM
        // though both are GPU compute); launches, host work and idle keep their share's.
        row[2]->setData(
            seg.kind == trace::PathKind::Kernel ? categoryColour(seg.category) : pathShareColour(seg.share()),
            Qt::DecorationRole);
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
    const std::string hostCaveat = trace::hostTimeCaveat(path);
    const QString caveat = hostCaveat.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(hostCaveat);
    m_summary->setText(tr("Rank %1, %n analysed step(s): %2. The table is the chain of step #%3, the median one: "
                          "each stretch of its time and what held it (a kernel, its launch, host work between "
                          "launches, a synchronisation's wake-up, or nothing); sort by duration for the longest.",
                           nullptr, static_cast<int>(path.steps.size()))
                           .arg(rank->rank)
                           .arg(shares.join(QStringLiteral(", ")))
                           .arg(path.chainStep)
        + caveat);
}

} // namespace mfu::widgets
