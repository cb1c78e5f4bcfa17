#pragma once
// The set-up every plot of the application shares, written once: a QCustomPlot laid out edge to edge in its widget,
// a minimum size that keeps axes readable, labels cached as pixmaps (dragging and zooming do not re-layout text), and
// a bold title row above the axes. ChartView uses installPlot(); the views ChartView cannot draw (box plots, colour
// maps) derive from BarePlot, which also colours the plot from the widget palette on every theme change and shows
// the subclass's read-out of the point under the mouse as a tooltip.
#include <QSharedPointer>
#include <QStringList>
#include <QWidget>

class QCPAxisTickerText;
class QCPTextElement;
class QCustomPlot;

namespace mfu::widgets {

// Lays `plot` out to fill `owner`, sets the shared minimum size and hints, and adds the title row; returns the title.
QCPTextElement* installPlot(QWidget* owner, QCustomPlot* plot, const QString& title = {});

// Text ticks at 0, 1, 2, ... (cell or box centres): every label when there are at most `most`, else every k-th, so a
// thousand ranks do not print over one another.
QSharedPointer<QCPAxisTickerText> sparseTextTicker(const QStringList& labels, int most);

class BarePlot : public QWidget {
    Q_OBJECT
public:
    explicit BarePlot(const QString& title = {}, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    // The read-out for the item under a position in plot pixels; empty when there is none.
    virtual QString readoutAt(const QPointF& pos) const = 0;

protected:
    // Colours the plot and every element it holds (a colour scale included) from the palette: call it at the end of
    // the subclass's constructor; theme changes call it again.
    void applyPalette();
    void changeEvent(QEvent* event) override;

    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
};

} // namespace mfu::widgets
