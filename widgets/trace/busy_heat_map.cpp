#include "widgets/trace/busy_heat_map.h"

#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/number_text.h"

namespace mfu::widgets {

namespace {

constexpr int kMaxLabelledCells = 96; // beyond this the numbers crowd the cells; the read-out still gives each

// Viridis (van der Walt & Smith, matplotlib's default colour map): perceptually uniform and readable with the
// common colour-vision deficiencies; dark = idle, bright = busy.
QCPColorGradient busyGradient()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.00, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.50, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.00, QColor(0xfd, 0xe7, 0x25));
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

} // namespace

BusyHeatMap::BusyHeatMap(QWidget* parent)
    : BarePlot(QString(), parent)
{
    setAccessibleName(tr("GPU busy share per rank and step"));
    m_plot->xAxis->setLabel(tr("Step (ProfilerStep#)"));
    m_plot->yAxis->setLabel(tr("Rank"));
    m_plot->yAxis->setRangeReversed(true); // rank 0 on top, as in the rank table
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(tr("GPU busy (% of the step's GPU window)"));
    m_scale->setBarWidth(14);
    m_map->setColorScale(m_scale);
    m_map->setGradient(busyGradient());
    m_map->setDataRange(QCPRange(0, 100)); // fixed: the same colour means the same share in every run
    m_map->setInterpolate(false);
    // The scale runs alongside the map, not the whole widget.
    auto* group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);

    applyPalette();
    clear();
}

void BusyHeatMap::clear()
{
    setMatrix({});
}

void BusyHeatMap::setMatrix(trace::BusyShareMatrix matrix)
{
    m_matrix = std::move(matrix);
    const int columns = static_cast<int>(m_matrix.steps.size());
    const int rows = static_cast<int>(m_matrix.ranks.size());
    // Cell (c, r) is centred on (c, r); one cell spans -0.5..0.5 (QCPColorMapData puts the outer cells' centres on
    // the range ends, so a single cell needs a range of its own width).
    const auto range = [](int n) { return n > 1 ? QCPRange(0, n - 1) : QCPRange(-0.5, 0.5); };
    auto* cells = new QCPColorMapData(std::max(1, columns), std::max(1, rows), range(columns), range(rows));
    cells->fill(std::numeric_limits<double>::quiet_NaN());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c)
            if (const auto& v = m_matrix.share[static_cast<size_t>(r)][static_cast<size_t>(c)])
                cells->setCell(c, r, *v * 100);
    m_map->setData(cells); // takes ownership
    m_map->setVisible(columns > 0 && rows > 0);

    QStringList stepLabels, rankLabels;
    for (int64_t s : m_matrix.steps)
        stepLabels << QStringLiteral("#%1").arg(s);
    for (int r : m_matrix.ranks)
        rankLabels << QString::number(r);
    m_plot->xAxis->setTicker(sparseTextTicker(stepLabels, 24));
    m_plot->yAxis->setTicker(sparseTextTicker(rankLabels, 32));
    m_plot->xAxis->setRange(-0.5, std::max(0, columns - 1) + 0.5);
    m_plot->yAxis->setRange(-0.5, std::max(0, rows - 1) + 0.5);
    m_title->setText(
        rows == 0 ? tr("GPU busy share per rank and step (open a trace)") : tr("GPU busy share per rank and step"));
    addCellLabels();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void BusyHeatMap::addCellLabels()
{
    m_plot->clearItems();
    m_labelled = 0;
    const size_t rows = m_matrix.ranks.size();
    const size_t columns = m_matrix.steps.size();
    if (rows * columns == 0 || rows * columns > static_cast<size_t>(kMaxLabelledCells))
        return;
    QCPColorGradient gradient = m_map->gradient(); // colorize() is not const
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < columns; ++c) {
            const auto& v = m_matrix.share[r][c];
            if (!v)
                continue;
            auto* text = new QCPItemText(m_plot);
            text->position->setCoords(static_cast<double>(c), static_cast<double>(r));
            text->setText(percentText(*v, 1)); // one decimal: it is printed inside a small cell
            // Dark text on the bright (busy) end, white on the dark end.
            QRgb rgb = 0;
            gradient.colorize(&*v, QCPRange(0, 1), &rgb, 1);
            text->setColor(QColor(rgb).lightnessF() > 0.5 ? Qt::black : Qt::white);
            text->setClipToAxisRect(true);
            ++m_labelled;
        }
}

QString BusyHeatMap::readoutAt(const QPointF& pos) const
{
    if (m_matrix.ranks.empty() || !m_plot->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const long c = std::lround(m_plot->xAxis->pixelToCoord(pos.x()));
    const long r = std::lround(m_plot->yAxis->pixelToCoord(pos.y()));
    if (c < 0 || r < 0 || c >= static_cast<long>(m_matrix.steps.size())
        || r >= static_cast<long>(m_matrix.ranks.size()))
        return {};
    const auto& v = m_matrix.share[static_cast<size_t>(r)][static_cast<size_t>(c)];
    const int rank = m_matrix.ranks[static_cast<size_t>(r)];
    const qlonglong step = m_matrix.steps[static_cast<size_t>(c)];
    return v ? tr("Rank %1, step #%2: GPU busy %3 of the step's GPU window").arg(rank).arg(step).arg(percentText(*v, 1))
             : tr("Rank %1 did not analyse step #%2").arg(rank).arg(step);
}

} // namespace mfu::widgets
