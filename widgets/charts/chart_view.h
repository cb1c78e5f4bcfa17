#pragma once
// ChartView: the one chart component every panel uses. It wraps QCustomPlot (title, axes with units, legend, hover
// read-out, zoom (Ctrl+wheel) and pan, palette-aware colours, log x axis, line / scatter / bar / misfit series) and
// exports the chart to PNG, SVG and PDF and its data to CSV. The plotted numbers live in a plain ChartData, so the CSV
// holds exactly what is drawn. Every export returns bool; lastError() says why one failed.
#include <QHash>
#include <QPointer>
#include <QWidget>

#include "widgets/charts/chart_data.h"
#include "widgets/charts/meaning_palette.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPItemText;
class QCPItemTracer;
class QCPTextElement;
class QMouseEvent;

namespace mfu::widgets {

class ChartView : public QWidget {
    Q_OBJECT
public:
    explicit ChartView(QWidget* parent = nullptr);
    ~ChartView() override;

    void setTitle(const QString& title);
    void setXAxis(const QString& label, const QString& unit);
    void setYAxis(const QString& label, const QString& unit);
    // A right-hand scale reading the left axis times `factor` (0 removes it); it follows zoom and pan.
    void setSecondaryYScale(const QString& label, const QString& unit, double factor);
    // Logarithmic x axis; base 2 labels powers of two as "1k", "8k", "128k" (sequence lengths).
    void setLogX(bool logX, double base = 10);
    // Ticks at these x values alone, labelled as read ("25", "3,200"): a log axis whose points are not powers of its
    // base (a network sweep's 25 to 3,200 Gb/s). Call after setLogX.
    void setXTicksAt(const QVector<double>& ticks);
    // Logarithmic y axis, base 10 (a roofline's TFLOPS).
    void setLogY(bool logY);
    // An x axis of whole things (training steps): ticks only at integers, never "4.2" or "15.5".
    void setIntegerX();
    // No series, no axis labels, the axes back to 0-1: an emptied chart shows nothing of what it drew before.
    void clearAll();
    // An emptied chart that says why it is empty, in the middle of the plot: clearAll(), the axes' ticks, numbers and
    // grid hidden (they would be a scale of nothing), and `why` shown until the next series is added.
    void showEmpty(const QString& why);
    QString emptyReason() const;
    // Named x positions 0..n-1 (bar charts of components, runs, ...).
    void setCategories(const QStringList& categories);
    // Category names longer than a bar is wide, tilted so they do not run into each other: 40 degrees, upright when
    // the bars are too narrow even for that, with room left of the plot for the first name.
    void setCategoryLabelsTilted(bool tilted);
    // Legend outside the plot (default: never covers data; right of it, or below it in columns when the chart is
    // too narrow to give it a column) or inside its top-left corner.
    void setLegendOutside(bool outside);

    // Series; each returns its index in data().series. Points are sorted by x.
    int addLine(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit = {});
    int addScatter(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit = {});
    int addMisfits(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit = {});
    // Points that each carry a label the hover read-out names, drawn at `markerSize` points (0: the default);
    // `inLegend` false leaves the series out of the legend (a second size of a kind already listed).
    int addLabelledScatter(const QString& name, const QVector<double>& x, const QVector<double>& y,
        const QStringList& labels, double markerSize = 0, bool inLegend = true);
    // stackedOn: index of an earlier bars series to stack on, -1 for none.
    int addBars(const QString& name, const QVector<double>& x, const QVector<double>& y, int stackedOn = -1,
        const QString& unit = {});
    // An edge of an uncertainty band around the chart's first series, in its colour; fillTo: index of the other
    // edge, shaded between the two.
    int addBandEdge(const QString& name, const QVector<double>& x, const QVector<double>& y, int fillTo = -1,
        const QString& unit = {});
    // A fixed colour for one series (a kernel category's own), kept through palette changes and exports.
    void setSeriesColour(int index, const QColor& colour);
    // The colour of what the series means (meaning_palette.h), the same in every chart.
    void setSeriesMeaning(int index, Meaning meaning);
    // The palette's text colour for one series (a reference drawn over the data), followed through palette changes.
    void setSeriesInTextColour(int index);
    // Markers at 0 that stand for no figure: the hover read-out says "none" (ChartSeries::withoutValue).
    void setSeriesWithoutValue(int index);
    // A marker of its own for one series (each kind of point a symbol of its own, as the legend shows it).
    void setSeriesMarker(int index, Marker marker);
    void clearSeries();
    // Fits the axes to the data (y from 0 when all data is non-negative) and replots.
    void rescale();

    const ChartData& data() const { return m_data; }
    QCustomPlot* plot() const { return m_plot; }

    // The size exports render at: the on-screen size, or 800x500 when the chart has never been laid out.
    QSize exportSize() const;
    // Places the legend for a render at `size` (right of the plot or below it, in as many columns as fit) instead of
    // for the widget's own width: a chart that is never shown (the report's) has QWidget's default 640 px, and its
    // legend, placed for that, ran off the page's margin or under its foot when drawn at another size. Every export
    // calls it for the size it renders at; the report calls it before drawing a chart into the PDF. Tilted category
    // names are fitted to that size too.
    void layoutLegendFor(const QSize& size);
    bool exportPng(const QString& path, double scale = 2.0);
    // The PNG exportPng writes, in memory (a report writes its images and page together: core/io/atomic_file.h).
    bool renderPng(QByteArray& bytes, double scale = 2.0);
    bool exportSvg(const QString& path);
    bool exportPdf(const QString& path);
    bool exportCsv(const QString& path);
    // Chooses the format from the suffix (png, svg, pdf, csv); used by File > Export and headless reports.
    bool exportTo(const QString& path);
    QString lastError() const { return m_lastError; }
    static QString exportFileFilter();
    // Asks for a file name and exports; tells the user when the save fails. Returns true when saved.
    bool exportInteractively(const QString& suggestedSuffix = QStringLiteral("png"));

    // The read-out for the data point nearest to a position in plot pixels; empty when none is close.
    QString readoutAt(const QPointF& pos) const;
    QString hoverText() const { return m_hoverText; }

signals:
    void hovered(const QString& readout);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int addSeries(ChartSeries series);
    QCPAbstractPlottable* createPlottable(const ChartSeries& series, int index);
    void applyPalette();
    void placeLegend(int width = -1); // -1: the widget's width
    void setEmptyReason(const QString& why); // empty: the axes' numbers back, no reason shown
    void fitCategoryLabels();
    void styleSeries(QCPAbstractPlottable* plottable, const ChartSeries& series, int index) const;
    // One series' look changed by `change` (an index out of range changes nothing), restyled and redrawn.
    template <typename Change> void restyleSeries(int index, Change change);
    void onMouseMove(QMouseEvent* event);
    void showContextMenu(const QPoint& pos);
    bool fail(const QString& message);
    struct Hit {
        int series = -1;
        int point = -1;
    };
    Hit nearestPoint(const QPointF& pos) const;

    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPItemTracer* m_tracer = nullptr;
    QCPItemText* m_emptyReason = nullptr;
    int m_baseMinimumLeftMargin = 0; // QCustomPlot's own, before fitCategoryLabels widens it
    bool m_tiltCategoryLabels = false;
    ChartData m_data;
    QVector<QCPAbstractPlottable*> m_plottables; // parallel to m_data.series
    double m_logBase = 10;
    enum class LegendPlace { Right, Below, Inside };
    bool m_legendOutside = true;
    LegendPlace m_legendPlace = LegendPlace::Right;
    bool m_legendPlaced = false;
    QString m_lastError;
    QString m_hoverText;
};

} // namespace mfu::widgets
