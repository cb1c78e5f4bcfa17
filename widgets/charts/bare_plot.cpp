#include "widgets/charts/bare_plot.h"

#include <QEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

#include <qcustomplot.h>

#include "widgets/charts/plot_palette.h"

namespace mfu::widgets {

QCPTextElement* installPlot(QWidget* owner, QCustomPlot* plot, const QString& title)
{
    auto* layout = new QVBoxLayout(owner);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot);
    owner->setMinimumSize(320, 220);
    // Tick labels are rendered once to pixmaps and reused, so dragging and zooming do not re-layout text. Exports set
    // pmNoCaching, so SVG and PDF still get real text.
    plot->setPlottingHint(QCP::phCacheLabels, true);
    QFont font = owner->font();
    font.setPointSize(font.pointSize() + 2);
    font.setBold(true);
    auto* titleElement = new QCPTextElement(plot, title, font);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, titleElement);
    return titleElement;
}

QSharedPointer<QCPAxisTickerText> sparseTextTicker(const QStringList& labels, int most)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int count = static_cast<int>(labels.size());
    const int every = std::max(1, (count + most - 1) / std::max(1, most));
    for (int i = 0; i < count; i += every)
        ticker->addTick(i, labels[i]);
    return ticker;
}

BarePlot::BarePlot(const QString& title, QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    m_title = installPlot(this, m_plot, title);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const QString text = readoutAt(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
}

void BarePlot::applyPalette()
{
    applyPlotPalette(m_plot, palette());
}

void BarePlot::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        applyPalette();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

} // namespace mfu::widgets
