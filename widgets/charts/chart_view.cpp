#include "widgets/charts/chart_view.h"

#include <QEvent>
#include <QFileInfo>
#include <QMenu>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <qcustomplot.h>

#include "widgets/charts/bare_plot.h"
#include "widgets/charts/plot_palette.h"

namespace mfu::widgets {

namespace {

// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. The misfit colour is kept out
// of the rotation so "does not fit" always looks the same. The sky blue comes last: fifth, it sat beside the first
// series' blue on the FLOP/token chart (6N against "Per-component, causal"), two lines a glance could not tell apart.
const QColor kSeriesColours[] = { QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73),
    QColor(0xCC, 0x79, 0xA7), QColor(0x66, 0x44, 0x00), QColor(0x99, 0x99, 0x99), QColor(0x56, 0xB4, 0xE9) };
// Category names tilted this far read along the axis and still leave a narrow bar's neighbour room.
constexpr double kCategoryTiltDegrees = 40;

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// Log ticks at powers of two read as "1k", "8k", "128k": how people write sequence lengths.
class PowerOfTwoTicker : public QCPAxisTickerLog {
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override
    {
        if (tick >= 1024 && std::fmod(tick, 1024) == 0)
            return QString::number(tick / 1024, 'g', 6) + QLatin1Char('k');
        return QCPAxisTickerLog::getTickLabel(tick, locale, formatChar, precision);
    }
};

QCPScatterStyle::ScatterShape shapeOf(Marker marker)
{
    switch (marker) {
    case Marker::Auto:
    case Marker::Disc:
        return QCPScatterStyle::ssDisc;
    case Marker::Circle:
        return QCPScatterStyle::ssCircle;
    case Marker::Cross:
        return QCPScatterStyle::ssCross;
    case Marker::CrossCircle:
        return QCPScatterStyle::ssCrossCircle;
    case Marker::Square:
        return QCPScatterStyle::ssSquare;
    case Marker::Diamond:
        return QCPScatterStyle::ssDiamond;
    case Marker::Triangle:
        return QCPScatterStyle::ssTriangle;
    case Marker::TriangleDown:
        return QCPScatterStyle::ssTriangleInverted;
    case Marker::Star:
        return QCPScatterStyle::ssStar;
    }
    return QCPScatterStyle::ssDisc;
}

// Filled shapes read best filled; crosses and stars are strokes.
QCPScatterStyle markerStyle(Marker marker, const QColor& colour, double size)
{
    const QCPScatterStyle::ScatterShape shape = shapeOf(marker);
    const bool filled = shape == QCPScatterStyle::ssDisc || shape == QCPScatterStyle::ssSquare
        || shape == QCPScatterStyle::ssDiamond || shape == QCPScatterStyle::ssTriangle
        || shape == QCPScatterStyle::ssTriangleInverted;
    return QCPScatterStyle(shape, QPen(colour, 2), filled ? QBrush(colour) : QBrush(Qt::NoBrush), size);
}

void sortByX(QVector<double>& x, QVector<double>& y, QStringList& labels)
{
    QVector<int> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&x](int a, int b) { return x[a] < x[b]; });
    QVector<double> sx, sy;
    QStringList sl;
    for (int i : order) {
        sx << x[i];
        sy << y[i];
        if (i < labels.size())
            sl << labels[i];
    }
    x = sx;
    y = sy;
    if (!labels.isEmpty())
        labels = sl;
}

} // namespace

ChartView::ChartView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    m_title = installPlot(this, m_plot);
    m_baseMinimumLeftMargin = m_plot->axisRect()->minimumMargins().left();

    // One polyline per graph instead of a segment per point: much faster for long series, and with our 2 px solid
    // pens the rare join artefacts it allows do not show.
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // The wheel zooms only with Ctrl held: charts sit in scrolling pages (Predict's Precision tab), where the wheel
    // meant to scroll the page zoomed the chart out instead, below 0 and off its categories.
    m_plot->installEventFilter(this);

    m_plot->legend->setVisible(true);
    setLegendOutside(true);
    // An empty chart (cleared, or waiting for its data) draws no legend: an empty legend frame reads as a missing key.
    connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
        m_plot->legend->setVisible(m_plot->legend->itemCount() > 0);
        fitCategoryLabels();
    });

    m_tracer = new QCPItemTracer(m_plot);
    m_tracer->setStyle(QCPItemTracer::tsCircle);
    m_tracer->setSize(9);
    m_tracer->setVisible(false);

    m_emptyReason = new QCPItemText(m_plot);
    m_emptyReason->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_emptyReason->position->setCoords(0.5, 0.5);
    m_emptyReason->setPositionAlignment(Qt::AlignCenter);
    m_emptyReason->setTextAlignment(Qt::AlignCenter);
    m_emptyReason->setVisible(false);

    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &ChartView::showContextMenu);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ChartView::onMouseMove);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { rescale(); });
    // The right-hand scale is the left one times a factor, through every zoom and pan.
    connect(m_plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& range) {
        if (m_data.y2Factor > 0)
            m_plot->yAxis2->setRange(range.lower * m_data.y2Factor, range.upper * m_data.y2Factor);
    });
    applyPalette();
}

ChartView::~ChartView() = default;

bool ChartView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Wheel
        && !(static_cast<QWheelEvent*>(event)->modifiers() & Qt::ControlModifier)) {
        event->ignore(); // not the plot's: Qt passes it on to the scrolling page around the chart
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ChartView::setTitle(const QString& title)
{
    m_data.title = title;
    m_title->setText(title);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setXAxis(const QString& label, const QString& unit)
{
    m_data.xAxis = { label, unit };
    m_plot->xAxis->setLabel(m_data.xAxis.text());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setYAxis(const QString& label, const QString& unit)
{
    m_data.yAxis = { label, unit };
    m_plot->yAxis->setLabel(m_data.yAxis.text());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setSecondaryYScale(const QString& label, const QString& unit, double factor)
{
    m_data.y2Axis = { label, unit };
    m_data.y2Factor = factor > 0 ? factor : 0;
    QCPAxis* axis = m_plot->yAxis2;
    axis->setVisible(m_data.y2Factor > 0);
    axis->setTickLabels(m_data.y2Factor > 0);
    axis->setLabel(m_data.y2Factor > 0 ? m_data.y2Axis.text() : QString());
    if (m_data.y2Factor > 0) {
        const QCPRange range = m_plot->yAxis->range();
        axis->setRange(range.lower * m_data.y2Factor, range.upper * m_data.y2Factor);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setLogX(bool logX, double base)
{
    m_data.logX = logX;
    m_logBase = base;
    if (logX) {
        QSharedPointer<QCPAxisTickerLog> ticker(base == 2 ? new PowerOfTwoTicker : new QCPAxisTickerLog);
        ticker->setLogBase(base);
        ticker->setSubTickCount(base == 2 ? 0 : 8);
        m_plot->xAxis->setTicker(ticker);
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    } else {
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->xAxis->setScaleType(QCPAxis::stLinear);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setXTicksAt(const QVector<double>& ticks)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (double x : ticks)
        ticker->addTick(x, formatReadable(x));
    m_plot->xAxis->setTicker(ticker);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setIntegerX()
{
    m_data.logX = false;
    m_plot->xAxis->setScaleType(QCPAxis::stLinear);
    // Tick steps that are whole multiples of 1 (1, 2, 5, 10, ...), so every tick is a whole step.
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::clearAll()
{
    clearSeries();
    setEmptyReason({});
    setXAxis({}, {});
    setYAxis({}, {});
    m_plot->xAxis->setRange(0, 1);
    m_plot->yAxis->setRange(0, 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::showEmpty(const QString& why)
{
    clearAll();
    setEmptyReason(why);
}

QString ChartView::emptyReason() const
{
    return m_emptyReason->visible() ? m_emptyReason->text() : QString();
}

void ChartView::setEmptyReason(const QString& why)
{
    // Wrapped by words to about 44 characters a line: the narrowest chart (the Cost panel's at 1280x720) is about
    // 300 px wide inside its axes.
    QStringList lines;
    for (const QString& word : why.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (lines.isEmpty() || lines.back().size() + 1 + word.size() > 44)
            lines << word;
        else
            lines.back() += QLatin1Char(' ') + word;
    }
    m_emptyReason->setText(lines.join(QLatin1Char('\n')));
    const bool empty = !lines.isEmpty();
    m_emptyReason->setVisible(empty);
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis }) {
        axis->setTicks(!empty);
        axis->setTickLabels(!empty);
        axis->grid()->setVisible(!empty);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setLogY(bool logY)
{
    m_data.logY = logY;
    if (logY) {
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        m_plot->yAxis->setTicker(ticker);
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        // Every decade as a power of ten: the default format mixed "100", "0.01" and "10^-6" on one roofline axis.
        m_plot->yAxis->setNumberFormat(QStringLiteral("eb"));
        m_plot->yAxis->setNumberPrecision(0);
    } else {
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setNumberFormat(QStringLiteral("gbd")); // QCustomPlot's own
        m_plot->yAxis->setNumberPrecision(6);
    }
    m_plot->yAxis->grid()->setSubGridVisible(logY);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setCategories(const QStringList& categories)
{
    m_data.categories = categories;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < categories.size(); ++i)
        ticker->addTick(i, categories[i]);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setScaleType(QCPAxis::stLinear);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setCategoryLabelsTilted(bool tilted)
{
    m_tiltCategoryLabels = tilted;
    if (!tilted)
        m_plot->xAxis->setTickLabelRotation(0);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// Tilted category names, laid out for the plot's width on every replot:
// - adjacent labels tilted by a stand a category's width x sin(a) apart across their lines; under a line's height
//   they run into each other (14 GPUs in the Cost panel's By GPU chart at 1280x720), and upright gives the most room;
// - QCustomPlot leaves out a tick label that would cross the widget's edge, and a tilted one hangs left of its tick by
//   its width x cos(a): the first (the cheapest GPU) went missing and the rest read one bar off. The plot's left
//   margin grows to hold it.
void ChartView::fitCategoryLabels()
{
    QCPAxis* axis = m_plot->xAxis;
    QMargins minimum = m_plot->axisRect()->minimumMargins();
    minimum.setLeft(m_baseMinimumLeftMargin);
    const double categories = axis->range().size();
    if (m_tiltCategoryLabels && !m_data.categories.isEmpty() && categories > 0) {
        const QFontMetricsF metrics(axis->tickLabelFont());
        // From the widget's left edge to the plot's right edge: the same whichever margin the last layout used, so
        // the choice does not flip between replots (a hover replots).
        const double span = m_plot->axisRect()->width() + m_plot->axisRect()->margins().left();
        const double baseWidth = span - m_baseMinimumLeftMargin;
        // Every name, not only the first: a long second one (the MFU waterfall's "Matmul/attention below peak") hangs
        // further left past its tick than a short first one does. Category i's tick sits at a fraction f of the plot,
        // which narrows as the margin m grows: m + (span - m) f must reach its hang, so m >= (hang - span f) / (1 - f).
        const auto leftMargin = [&](double degrees) {
            const double radians = degrees * M_PI / 180.0;
            double margin = m_baseMinimumLeftMargin;
            for (qsizetype i = 0; i < m_data.categories.size(); ++i) {
                const double f = (static_cast<double>(i) - axis->range().lower) / categories;
                if (f <= 0 || f >= 1)
                    continue;
                const double hang = metrics.horizontalAdvance(m_data.categories[i]) * std::cos(radians)
                    + metrics.height() * std::sin(radians) / 2 + axis->tickLabelPadding() + 4;
                margin = std::max(margin, std::ceil((hang - span * f) / (1 - f)));
            }
            return margin;
        };
        const double tiltedWidth = baseWidth + m_baseMinimumLeftMargin - leftMargin(kCategoryTiltDegrees);
        const double degrees
            = tiltedWidth / categories * std::sin(kCategoryTiltDegrees * M_PI / 180.0) >= metrics.height()
            ? kCategoryTiltDegrees
            : 90.0;
        axis->setTickLabelRotation(-degrees);
        minimum.setLeft(static_cast<int>(leftMargin(degrees)));
    }
    m_plot->axisRect()->setMinimumMargins(minimum);
}

void ChartView::setLegendOutside(bool outside)
{
    m_legendOutside = outside;
    placeLegend();
}

// Outside the plot the legend goes right of it when the chart is wide enough to give it a column, else below it in
// as many columns as fit, so a narrow chart (a small window, a chart beside another) keeps its plot and its whole
// legend instead of squeezing one or clipping the other.
void ChartView::layoutLegendFor(const QSize& size)
{
    placeLegend(size.width());
    // Tilted category names fitted to the size drawn at: an export draws without a replot, so the fit beforeReplot
    // makes had seen the widget's own size, or nothing at all in a report drawn headless, and the report's 13 GPU
    // names ran into each other level. The layout is run once at that size for the fit to read its plot width.
    if (m_tiltCategoryLabels) {
        const QRect shown = m_plot->viewport();
        m_plot->setViewport(QRect(QPoint(0, 0), size));
        for (const auto phase :
            { QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout })
            m_plot->plotLayout()->update(phase);
        fitCategoryLabels();
        m_plot->setViewport(shown);
    }
}

// The most columns a legend below the plot can have within `width`: filled row by row, each column as wide as its
// widest entry (12 px of spacing and margins each, 12 for the frame). A short entry beside a long one no longer
// costs a long one's width, so the six entries of a sweep at 1280x720 take three rows instead of six.
static int legendColumnsWithin(const std::vector<int>& widths, int width)
{
    for (size_t columns = widths.size(); columns > 1; --columns) {
        std::vector<int> widest(columns, 0);
        for (size_t i = 0; i < widths.size(); ++i)
            widest[i % columns] = std::max(widest[i % columns], widths[i]);
        int total = 12;
        for (const int w : widest)
            total += w + 12;
        if (total <= width)
            return static_cast<int>(columns);
    }
    return 1;
}

void ChartView::placeLegend(int width)
{
    if (width < 0)
        width = this->width();
    LegendPlace place = LegendPlace::Inside;
    if (m_legendOutside) {
        std::vector<int> widths;
        for (int i = 0; i < m_plot->legend->itemCount(); ++i)
            if (QCPAbstractLegendItem* item = m_plot->legend->item(i)) // a wrapped grid has empty cells
                widths.push_back(item->minimumOuterSizeHint().width());
        const int widest = widths.empty() ? 0 : *std::max_element(widths.begin(), widths.end());
        const int legendWidth = widest + 24; // the legend's margins and border
        place = legendWidth <= width * 0.38 ? LegendPlace::Right : LegendPlace::Below;
        if (place == LegendPlace::Below) {
            const int columns = legendColumnsWithin(widths, width - 16);
            if (columns != m_plot->legend->wrap()) {
                m_plot->legend->setWrap(columns);
                m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
            }
        }
    }
    if (place == m_legendPlace && m_legendPlaced)
        return;
    m_legendPlaced = true;
    m_legendPlace = place;
    QCPLayoutGrid* layout = m_plot->plotLayout();
    if (QCPLayout* owner = m_plot->legend->layout())
        owner->take(m_plot->legend);
    // Back to the title row and the axis rect alone, then the legend where it goes.
    for (int row = 0; row < layout->rowCount(); ++row)
        for (int column = 0; column < layout->columnCount(); ++column)
            if (!(row <= 1 && column == 0) && layout->hasElement(row, column))
                layout->remove(layout->element(row, column));
    layout->simplify();
    switch (place) {
    case LegendPlace::Right: {
        // Right of the axis rect, top-aligned: the legend never hides data.
        m_plot->legend->setWrap(0);
        m_plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
        auto* column = new QCPLayoutGrid;
        layout->addElement(1, 1, column);
        column->addElement(0, 0, m_plot->legend);
        column->addElement(1, 0, new QCPLayoutElement(m_plot));
        column->setRowStretchFactor(0, 0.01);
        layout->setColumnStretchFactor(1, 0.01);
        column->setMargins(QMargins(2, 6, 8, 6)); // keeps the legend border off the widget edge
        m_plot->legend->setMargins(QMargins(4, 4, 4, 4));
        break;
    }
    case LegendPlace::Below: {
        // In a grid of its own with margins, as on the right: placed straight in the plot's layout the legend's
        // border lay on the chart's right and bottom edges and was cut there (the report's PDF showed open frames).
        auto* row = new QCPLayoutGrid;
        layout->addElement(2, 0, row);
        row->addElement(0, 0, m_plot->legend);
        row->setMargins(QMargins(2, 2, 8, 6));
        layout->setRowStretchFactor(2, 0.001);
        m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
        break;
    }
    case LegendPlace::Inside:
        m_plot->legend->setWrap(0);
        m_plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
        m_plot->axisRect()->insetLayout()->addElement(m_plot->legend, Qt::AlignTop | Qt::AlignLeft);
        break;
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    placeLegend();
}

int ChartView::addLine(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit)
{
    return addSeries({ name, unit, SeriesKind::Line, x, y, -1, QColor() });
}

int ChartView::addScatter(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit)
{
    return addSeries({ name, unit, SeriesKind::Scatter, x, y, -1, QColor() });
}

int ChartView::addMisfits(const QString& name, const QVector<double>& x, const QVector<double>& y, const QString& unit)
{
    return addSeries({ name, unit, SeriesKind::Misfit, x, y, -1, QColor() });
}

int ChartView::addLabelledScatter(const QString& name, const QVector<double>& x, const QVector<double>& y,
    const QStringList& labels, double markerSize, bool inLegend)
{
    ChartSeries series { name, {}, SeriesKind::Scatter, x, y, -1, QColor() };
    series.labels = labels;
    series.markerSize = markerSize;
    series.inLegend = inLegend;
    return addSeries(series);
}

int ChartView::addBandEdge(
    const QString& name, const QVector<double>& x, const QVector<double>& y, int fillTo, const QString& unit)
{
    const bool validEdge
        = fillTo >= 0 && fillTo < m_data.series.size() && m_data.series[fillTo].kind == SeriesKind::Band;
    return addSeries({ name, unit, SeriesKind::Band, x, y, validEdge ? fillTo : -1, QColor() });
}

int ChartView::addBars(
    const QString& name, const QVector<double>& x, const QVector<double>& y, int stackedOn, const QString& unit)
{
    const bool validBase
        = stackedOn >= 0 && stackedOn < m_data.series.size() && m_data.series[stackedOn].kind == SeriesKind::Bars;
    return addSeries({ name, unit, SeriesKind::Bars, x, y, validBase ? stackedOn : -1, QColor() });
}

template <typename Change> void ChartView::restyleSeries(int index, Change change)
{
    if (index < 0 || index >= m_data.series.size())
        return;
    change(m_data.series[index]);
    styleSeries(m_plottables[index], m_data.series[index], index);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::setSeriesColour(int index, const QColor& colour)
{
    restyleSeries(index, [&colour](ChartSeries& s) { s.colour = colour; });
}

void ChartView::setSeriesMeaning(int index, Meaning meaning)
{
    restyleSeries(index, [meaning](ChartSeries& s) {
        s.colour = meaningColour(meaning);
        // Lightened on a dark background only where it would sink into it: a light colour (the memory chart's
        // reserved grey, sand, cyan) lightened turned near white, the grid's and the text's colour.
        s.lighterOnDark = s.colour.lightness() < 128;
    });
}

void ChartView::setSeriesInTextColour(int index)
{
    restyleSeries(index, [](ChartSeries& s) { s.inTextColour = true; });
}

void ChartView::setSeriesWithoutValue(int index)
{
    if (index >= 0 && index < m_data.series.size())
        m_data.series[index].withoutValue = true;
}

void ChartView::setSeriesMarker(int index, Marker marker)
{
    restyleSeries(index, [marker](ChartSeries& s) { s.marker = marker; });
}

int ChartView::addSeries(ChartSeries series)
{
    series.y.resize(series.x.size());
    sortByX(series.x, series.y, series.labels);
    if (m_emptyReason->visible())
        setEmptyReason({});
    const int index = static_cast<int>(m_data.series.size());
    m_data.series << series;
    m_plottables << createPlottable(series, index);
    placeLegend();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return index;
}

QCPAbstractPlottable* ChartView::createPlottable(const ChartSeries& series, int index)
{
    QCPAbstractPlottable* plottable = nullptr;
    if (series.kind == SeriesKind::Bars) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        double spacing = 1;
        for (int i = 1; i < series.x.size(); ++i)
            spacing = std::min(spacing, series.x[i] - series.x[i - 1]);
        bars->setWidth(0.6 * (spacing > 0 ? spacing : 1));
        bars->setData(series.x, series.y, true);
        if (series.stackedOn >= 0)
            bars->moveAbove(static_cast<QCPBars*>(m_plottables[series.stackedOn]));
        plottable = bars;
    } else {
        auto* graph = m_plot->addGraph();
        graph->setData(series.x, series.y, true);
        plottable = graph;
    }
    plottable->setName(series.name);
    // A band is one legend entry, its shaded upper edge: the lower edge alone would read as a second line.
    if ((series.kind == SeriesKind::Band && series.stackedOn < 0) || !series.inLegend)
        plottable->removeFromLegend();
    styleSeries(plottable, series, index);
    return plottable;
}

void ChartView::styleSeries(QCPAbstractPlottable* plottable, const ChartSeries& series, int index) const
{
    QColor colour = series.kind == SeriesKind::Misfit ? meaningColour(Meaning::DoesNotFit)
                                                      : kSeriesColours[index % std::size(kSeriesColours)];
    if (isDark(palette()))
        colour = colour.lighter(135); // the Okabe-Ito blues are too dark on a dark background
    if (series.colour.isValid()) // a category's own colour, the same in both palettes, or a meaning's
        colour = series.lighterOnDark && isDark(palette()) ? series.colour.lighter(135) : series.colour;
    if (series.inTextColour)
        colour = palette().color(QPalette::Text);
    if (auto* bars = qobject_cast<QCPBars*>(plottable)) {
        bars->setPen(QPen(colour.darker(120), 1));
        bars->setBrush(colour);
        return;
    }
    auto* graph = qobject_cast<QCPGraph*>(plottable);
    switch (series.kind) {
    case SeriesKind::Line: {
        // Dash patterns as well as colours: lines that coincide (PaLM and per-component for dense models) both
        // stay visible, and the chart survives greyscale printing.
        const Qt::PenStyle styles[] = { Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DotLine };
        graph->setPen(QPen(colour, 2, styles[index % std::size(styles)]));
        graph->setLineStyle(QCPGraph::lsLine);
        // A line of one point draws nothing: it gets a marker, so a single valid point is seen.
        if (series.marker != Marker::Auto)
            graph->setScatterStyle(markerStyle(series.marker, colour, 8));
        else if (series.x.size() == 1)
            graph->setScatterStyle(markerStyle(Marker::Disc, colour, 8));
        else
            graph->setScatterStyle(QCPScatterStyle::ssNone);
        break;
    }
    case SeriesKind::Scatter:
        graph->setPen(QPen(colour, 1.5));
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(markerStyle(series.marker, colour,
            series.markerSize > 0               ? series.markerSize
                : series.marker == Marker::Star ? 16
                                                : 9));
        break;
    case SeriesKind::Misfit:
        graph->setPen(QPen(colour, 2));
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(
            markerStyle(series.marker == Marker::Auto ? Marker::CrossCircle : series.marker, colour, 11));
        break;
    case SeriesKind::Bars:
        break;
    case SeriesKind::Band: {
        // A band surrounds a chart's first series (its main prediction) and shares its colour.
        QColor edge = meaningColour(Meaning::ThisConfiguration);
        if (isDark(palette()))
            edge = edge.lighter(135);
        edge.setAlpha(110);
        graph->setPen(QPen(edge, 1, Qt::DotLine));
        graph->setLineStyle(QCPGraph::lsLine);
        graph->setScatterStyle(QCPScatterStyle::ssNone);
        if (series.stackedOn >= 0 && series.stackedOn < m_plottables.size()) {
            QColor fill = edge;
            fill.setAlpha(45);
            graph->setBrush(fill);
            graph->setChannelFillGraph(qobject_cast<QCPGraph*>(m_plottables[series.stackedOn]));
        }
        break;
    }
    }
}

void ChartView::clearSeries()
{
    m_plot->clearPlottables();
    m_plottables.clear();
    m_data.series.clear();
    setSecondaryYScale({}, {}, 0); // each chart states its own
    m_tracer->setVisible(false);
    m_hoverText.clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::rescale()
{
    m_plot->rescaleAxes();
    bool nonNegative = true;
    for (const auto& s : m_data.series)
        nonNegative = nonNegative && std::all_of(s.y.begin(), s.y.end(), [](double v) { return v >= 0; });
    // Markers placed at 0 ("shown at 0": cannot be laid out, nothing fits) sit a little above the axis, not half
    // under it.
    bool markersAtZero = false;
    for (const auto& s : m_data.series)
        markersAtZero
            = markersAtZero || ((s.kind == SeriesKind::Misfit || s.kind == SeriesKind::Scatter) && s.y.contains(0.0));
    const QCPRange y = m_plot->yAxis->range();
    // Headroom from the span shown: an axis of positive figures starts at 0, so the data's own spread (1,190 to 1,430
    // TFLOPS on the precision chart) would leave its top marker half above the plot.
    const double span = nonNegative ? y.upper : y.size();
    const double headroom = span > 0 ? 0.08 * span : std::max(1.0, std::abs(y.upper) * 0.1);
    if (m_data.logY)
        m_plot->yAxis->setRange(y.lower / 1.5, y.upper * 1.5); // a log axis has no 0 to start from
    else
        m_plot->yAxis->setRange(
            nonNegative ? (markersAtZero ? -0.5 * headroom : 0) : y.lower - headroom, y.upper + headroom);
    if (!m_data.categories.isEmpty()) {
        m_plot->xAxis->setRange(-0.6, m_data.categories.size() - 0.4);
    } else if (m_data.logX) {
        const QCPRange x = m_plot->xAxis->range();
        m_plot->xAxis->setRange(x.lower / 1.15, x.upper * 1.15);
    } else {
        m_plot->xAxis->scaleRange(1.05, m_plot->xAxis->range().center());
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange
        || event->type() == QEvent::StyleChange)
        applyPalette();
}

// QCustomPlot has no theme of its own: everything that is not a series takes its colour from the palette.
void ChartView::applyPalette()
{
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = blendColors(base, text, 0.18);
    const QColor subGrid = blendColors(base, text, 0.08);
    m_plot->setBackground(base);
    m_plot->axisRect()->setBackground(base);
    for (QCPAxis* axis : m_plot->axisRect()->axes()) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
        axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(QPen(grid, 1));
    }
    m_plot->xAxis->grid()->setSubGridVisible(m_data.logX);
    m_plot->yAxis->grid()->setSubGridVisible(m_data.logY);
    m_title->setTextColor(text);
    m_plot->legend->setBrush(QBrush(base));
    m_plot->legend->setBorderPen(QPen(blendColors(base, text, 0.35)));
    m_plot->legend->setTextColor(text);
    m_emptyReason->setColor(text);
    m_tracer->setPen(QPen(text, 1.5));
    m_tracer->setBrush(Qt::NoBrush);
    for (int i = 0; i < m_plottables.size(); ++i)
        styleSeries(m_plottables[i], m_data.series[i], i);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace mfu::widgets
