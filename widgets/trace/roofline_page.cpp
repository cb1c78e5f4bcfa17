#include "widgets/trace/roofline_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QStandardItemModel>
#include <QTableView>

#include <algorithm>

#include "core/number_format.h"
#include "core/trace/roofline.h"
#include "core/trace/trace_mfu.h"
#include "widgets/charts/chart_view.h"
#include "widgets/number_text.h"
#include "widgets/trace/chart_table_page.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

// The operator and shapes columns at most this wide, so the figures beside them stay on screen at 1280x720.
constexpr int kLongTextColumnWidth = 220;

} // namespace

RooflinePage::RooflinePage(QWidget* parent)
    : QWidget(parent)
    , m_marks(new QStandardItemModel(this))
{
    const ChartTablePage parts = buildChartTablePage(
        this, m_marks, { QStringLiteral("roofline"), tr("Roofline"), tr("Operator problems on the roofline"), 3, 2 });
    m_summary = parts.summary;
    m_chart = parts.chart;
    m_table = parts.table;
    show({});
}

QString RooflinePage::summary() const
{
    return m_summary->text();
}

void RooflinePage::show(const TraceSelection& selection)
{
    m_marks->clear();
    m_marks->setHorizontalHeaderLabels({ tr("Operator"), tr("Shapes"), tr("Precision"), tr("Calls"), tr("Time (ms)"),
        tr("TFLOPS"), tr("FLOP/byte"), tr("Of its roof (%)"), tr("Kernel") });
    const trace::RankAnalysis* rank = selection.selectedRank();
    if (!rank || !rank->opFlops.recordsShapes) {
        m_chart->clearSeries();
        m_chart->setTitle(tr("Roofline"));
        m_summary->setText(rank ? tr("This trace records no operator shapes, so it has no FLOPs or bytes to place on "
                                     "a roofline: profile with record_shapes=True.")
                                : tr("Open a trace recorded with shapes (record_shapes=True) to see its operators on "
                                     "the GPU's roofline."));
        return;
    }
    const auto gpu = traceHardware(*rank, m_known);
    const trace::Roofline roof = trace::rooflineOf(rank->opFlops, gpu ? &*gpu : nullptr);
    fillRooflineChart(m_chart, roof, gpu ? QString::fromStdString(gpu->displayName()) : QString());
    for (const auto& m : roof.marks) {
        const std::string precision = m.precision ? m.precision->key() : std::string();
        const double attainable = roof.attainableFlops(m.intensity(), precision);
        QList<QStandardItem*> row { sortableText(QString::fromStdString(m.op)),
            sortableText(QString::fromStdString(m.shapes)),
            sortableText(m.precision ? QString::fromStdString(m.precision->label()) : tr("–")),
            sortableNumber(static_cast<double>(m.calls), 0), sortableNumber(static_cast<double>(m.ns) / 1e6, 3),
            sortableNumber(m.tflops(), m.tflops() < 10 ? 2 : 1), sortableNumber(m.intensity(), 1),
            attainable > 0 ? sortableNumber(100 * m.tflops() * 1e12 / attainable, 1) : sortableText(tr("–")),
            sortableText(QString::fromStdString(m.kernel)) };
        for (auto* item : row)
            item->setEditable(false);
        m_marks->appendRow(row);
    }
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(8, QHeaderView::Stretch);
    // A compiled trace's operators are Inductor kernels named after all they fuse (150 characters and more), and
    // their shapes list every buffer: sized to their contents they pushed the figures off the right edge. They get a
    // bounded width the user can drag, elided in the middle, with the whole text in the tooltip.
    // The shapes after the figures, moved on screen only: the model's columns keep their order.
    m_table->setTextElideMode(Qt::ElideMiddle);
    for (const int column : { 0, 1 }) {
        const int wanted = header->sectionSize(column);
        header->setSectionResizeMode(column, QHeaderView::Interactive);
        header->resizeSection(column, std::min(wanted, kLongTextColumnWidth));
    }
    if (header->visualIndex(1) == 1)
        header->moveSection(1, 7);
    for (int row = 0; row < m_marks->rowCount(); ++row)
        for (const int column : { 0, 1, 8 })
            if (QStandardItem* item = m_marks->item(row, column))
                item->setToolTip(item->text());
    m_table->sortByColumn(4, Qt::DescendingOrder);
    // What each kind of kernel reached.
    QStringList reached;
    for (const auto& c : rank->opFlops.categories) {
        if (c.ns <= 0 || c.category == trace::KernelCategory::Memset || c.category == trace::KernelCategory::Memcpy)
            continue;
        const bool matrix = c.category == trace::KernelCategory::Gemm
            || c.category == trace::KernelCategory::AttentionFwd || c.category == trace::KernelCategory::AttentionBwd;
        reached << (matrix ? tr("%1 %2").arg(categoryLabel(trace::categoryKey(c.category)),
                        tflopsText(c.tflops() * 1e12) + QStringLiteral(" TFLOPS"))
                           : tr("%1 %2 GB/s")
                                 .arg(categoryLabel(trace::categoryKey(c.category)),
                                     QLocale().toString(c.bandwidthGBps(), c.bandwidthGBps() >= 10 ? 'f' : 'g',
                                         c.bandwidthGBps() >= 10 ? 0 : 3)));
    }
    QString head;
    if (gpu && !roof.ceilings.empty()) {
        const auto& top = roof.ceilings.front();
        head = tr("Rank %1 on %2: %3 roof %4, HBM %5 TB/s, ridge at %6 FLOP/byte.")
                   .arg(rank->rank)
                   .arg(QString::fromStdString(gpu->displayName()), QString::fromStdString(top.label),
                       tflopsText(top.peakFlops) + QStringLiteral(" TFLOPS"),
                       QLocale().toString(roof.hbmBytesPerSecond / 1e12, 'f', 2),
                       QLocale().toString(top.ridgeIntensity, 'f', 0));
    } else {
        head = tr("Rank %1: the trace names no GPU a preset matches, so no roofs are drawn.").arg(rank->rank);
    }
    // No category with work (no operator's shapes reached a kernel): say so rather than list nothing.
    const QString achieved = reached.isEmpty()
        ? tr("Nothing achieved is measurable: no kernel in the analysed steps has FLOPs or bytes from recorded shapes.")
        : tr("Achieved over their kernels' time: %1.").arg(reached.join(QStringLiteral(", ")));
    m_summary->setText(head + QLatin1Char(' ') + achieved + QLatin1Char(' ')
        + tr("Marks are operator problems (an operator on one set of shapes, all its calls in the analysed steps), "
             "sized by their time; hover one to name it.")
        + (roof.leftOutKernels > 0 ? QLatin1Char(' ') + QString::fromStdString(roof.leftOutNote()) : QString())
        + (roof.abovePeakProblems > 0 ? QLatin1Char(' ') + QString::fromStdString(roof.abovePeakNote()) : QString()));
}

} // namespace mfu::widgets
