#include "widgets/charts/plot_palette.h"

#include <qcustomplot.h>

namespace mfu::widgets {

namespace {

void styleAxis(QCPAxis* axis, const QColor& text, const QColor& grid)
{
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    if (axis->grid()) {
        axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
        axis->grid()->setZeroLinePen(QPen(grid, 1));
    }
}

} // namespace

QColor blendColors(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
        static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
        static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

void applyPlotPalette(QCustomPlot* plot, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const QColor grid = blendColors(base, text, 0.18);
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(base);
        for (QCPAxis* axis : rect->axes())
            styleAxis(axis, text, grid);
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        QCPLayoutElement* element = plot->plotLayout()->elementAt(i);
        if (auto* title = qobject_cast<QCPTextElement*>(element))
            title->setTextColor(text);
        if (auto* scale = qobject_cast<QCPColorScale*>(element))
            styleAxis(scale->axis(), text, grid);
    }
    plot->legend->setBrush(QBrush(base));
    plot->legend->setBorderPen(QPen(blendColors(base, text, 0.35)));
    plot->legend->setTextColor(text);
}

} // namespace mfu::widgets
