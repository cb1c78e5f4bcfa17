#include "widgets/trace/step_time_box_plot.h"

#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/number_text.h"

namespace mfu::widgets {

namespace {

// One hue for the distribution, darker for the steps themselves (Okabe-Ito blue, as ChartView's first series).
const QColor kBoxColour(0x00, 0x72, 0xB2);
const QColor kMeanColour(0xE6, 0x9F, 0x00); // Okabe-Ito orange: apart from the blue at a glance

// Rank labels for the x axis, one per box.
QStringList rankLabels(const std::vector<trace::RankStepTimes>& times)
{
    QStringList labels;
    for (const auto& t : times)
        labels << QString::number(t.rank);
    return labels;
}

} // namespace

StepTimeBoxPlot::StepTimeBoxPlot(QWidget* parent)
    : BarePlot(tr("Step time per rank"), parent)
{
    setAccessibleName(tr("Step time per rank"));
    m_plot->xAxis->setLabel(tr("Rank"));
    m_plot->yAxis->setLabel(tr("Step time (ms)"));

    m_boxes = new QCPStatisticalBox(m_plot->xAxis, m_plot->yAxis);
    m_boxes->setName(tr("Quartiles, whiskers min to max"));
    QColor fill = kBoxColour;
    fill.setAlphaF(0.25f);
    m_boxes->setBrush(fill);
    m_boxes->setPen(QPen(kBoxColour, 1.5));
    m_boxes->setMedianPen(QPen(kBoxColour, 3));
    m_boxes->setWhiskerPen(QPen(kBoxColour, 1.5, Qt::SolidLine));
    m_boxes->setWhiskerBarPen(QPen(kBoxColour, 1.5));
    m_boxes->setWidth(0.6);

    m_dots = m_plot->addGraph();
    m_dots->setName(tr("One analysed step"));
    m_dots->setLineStyle(QCPGraph::lsNone);
    m_dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kBoxColour.darker(150), Qt::white, 6));

    m_means = m_plot->addGraph();
    m_means->setName(tr("Mean"));
    m_means->setLineStyle(QCPGraph::lsNone);
    m_means->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kMeanColour.darker(130), 1.5), kMeanColour, 10));

    // The legend in one row under the axis: inside the plot it would cover a rank's box.
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
    applyPalette();
    clear();
}

std::pair<double, double> StepTimeBoxPlot::spreadRange(double lowest, double highest)
{
    if (!(highest > 0) || !std::isfinite(lowest))
        return { 0, 1 };
    // Steps of 600 ms that differ by 10 ms are what a straggler view is for: the axis spans the step times, not
    // zero up. A spread too small to draw still gets 2% of the step around it; an axis that would start below a
    // third of the longest step starts at zero.
    const double span = std::max(highest - lowest, 0.02 * highest);
    const double margin = 0.15 * span;
    const double lower = lowest - margin;
    return { lower < highest / 3 ? 0.0 : lower, highest + margin };
}

void StepTimeBoxPlot::clear()
{
    setStepTimes({});
}

void StepTimeBoxPlot::setStepTimes(std::vector<trace::RankStepTimes> times)
{
    m_times = std::move(times);
    m_boxes->data()->clear();
    QVector<double> dotX, dotY, meanX, meanY;
    double top = 0;
    double bottom = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < m_times.size(); ++i) {
        const trace::RankStepTimes& t = m_times[i];
        if (t.steps == 0)
            continue;
        const double x = static_cast<double>(i);
        m_boxes->addData(x, t.minSeconds * 1e3, t.lowerQuartileSeconds * 1e3, t.medianSeconds * 1e3,
            t.upperQuartileSeconds * 1e3, t.maxSeconds * 1e3);
        // Dots spread evenly across the middle of the box, in step order: a trend within a rank reads left to right.
        const size_t n = t.stepSeconds.size();
        for (size_t k = 0; k < n; ++k) {
            dotX << x + (n > 1 ? (static_cast<double>(k) / static_cast<double>(n - 1) - 0.5) * 0.4 : 0.0);
            dotY << t.stepSeconds[k] * 1e3;
        }
        meanX << x;
        meanY << t.meanSeconds * 1e3;
        top = std::max(top, t.maxSeconds * 1e3);
        bottom = std::min(bottom, t.minSeconds * 1e3);
    }
    m_dots->setData(dotX, dotY);
    m_means->setData(meanX, meanY);
    m_plot->xAxis->setTicker(sparseTextTicker(rankLabels(m_times), 32));
    m_plot->xAxis->setRange(-0.6, std::max<double>(0.6, static_cast<double>(m_times.size()) - 0.4));
    const auto [lower, upper] = spreadRange(bottom, top);
    m_plot->yAxis->setRange(lower, upper);
    m_title->setText(m_times.empty() ? tr("Step time per rank (open a trace)")
            : m_times.size() == 1    ? tr("Step time of the one rank")
                                     : tr("Step time per rank (%n ranks)", nullptr, static_cast<int>(m_times.size())));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString StepTimeBoxPlot::readoutAt(const QPointF& pos) const
{
    if (m_times.empty() || !m_plot->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double key = m_plot->xAxis->pixelToCoord(pos.x());
    const long index = std::lround(key);
    if (index < 0 || index >= static_cast<long>(m_times.size()) || std::abs(key - static_cast<double>(index)) > 0.4)
        return {};
    const trace::RankStepTimes& t = m_times[static_cast<size_t>(index)];
    if (t.steps == 0)
        return tr("Rank %1: no analysed steps").arg(t.rank);
    return tr("Rank %1: %n step(s); min %2, quartile 1 %3, median %4, quartile 3 %5, max %6, mean %7", nullptr,
        static_cast<int>(t.steps))
        .arg(t.rank)
        .arg(millisecondsText(t.minSeconds), millisecondsText(t.lowerQuartileSeconds),
            millisecondsText(t.medianSeconds), millisecondsText(t.upperQuartileSeconds), millisecondsText(t.maxSeconds),
            millisecondsText(t.meanSeconds));
}

} // namespace mfu::widgets
