#pragma once
// The data behind a chart, kept apart from QCustomPlot: the CSV export writes exactly these numbers, and tests and
// headless reports can read what a chart shows without touching the plot.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>

namespace mfu::widgets {

enum class SeriesKind {
    Line,
    Scatter, // measured points
    Bars,
    Misfit, // points that do not fit the model: drawn with a distinct symbol
    Band // an edge of an uncertainty band around the first series: faint; shaded to the edge in stackedOn when set
};

// The symbol drawn at each point. Auto: the kind's own (none on a line with two points or more, a disc on a line of
// one point so that it is never invisible, a disc for measured points, a crossed circle for misfits).
enum class Marker { Auto, Disc, Circle, Cross, CrossCircle, Square, Diamond, Triangle, TriangleDown, Star };

struct ChartSeries {
    QString name;
    QString unit; // unit of y; empty means the y axis unit
    SeriesKind kind = SeriesKind::Line;
    QVector<double> x; // ascending (the chart sorts on insertion, as QCustomPlot does)
    QVector<double> y;
    int stackedOn = -1; // Bars: index of the bars series this one sits on; Band: the edge it is shaded to
    QColor colour; // fixed colour (a kernel category's); invalid: the chart's palette by series index
    // `colour` is a meaning's (meaning_palette.h): lightened on a dark background, as the index palette is, where a
    // kernel category keeps its colour in both.
    bool lighterOnDark = false;
    // Drawn in the palette's text colour (a reference, not a category of data: a roof, "this scenario"), taken
    // again at each palette change, where `colour` would keep the old palette's.
    bool inTextColour = false;
    // Markers that stand for no figure (a configuration that does not fit in memory, cannot be laid out, or for which
    // nothing fits), drawn at 0 on the axis: the read-out says "none" instead of 0.
    bool withoutValue = false;
    Marker marker = Marker::Auto;
    QStringList labels {}; // optional, one per point: what the hover read-out names (a roofline mark's operator)
    double markerSize = 0; // points; 0: the kind's own
    bool inLegend = true; // false: drawn but not listed (the second size of one kind of mark)
};

struct ChartAxis {
    QString label;
    QString unit;
    QString text() const { return unit.isEmpty() ? label : label + QStringLiteral(" (") + unit + QLatin1Char(')'); }
};

struct ChartData {
    QString title;
    ChartAxis xAxis;
    ChartAxis yAxis;
    bool logX = false;
    bool logY = false;
    QStringList categories; // when set, x is a category index 0..n-1 and the CSV writes these names
    // A second scale on the right: the left axis's values times y2Factor (per GPU on the left, per node on the
    // right), so one set of lines reads in both units and never mixes them on one axis. 0: none.
    ChartAxis y2Axis;
    double y2Factor = 0;
    QVector<ChartSeries> series;

    QString unitOf(const ChartSeries& s) const { return s.unit.isEmpty() ? yAxis.unit : s.unit; }
};

// Shortest text that reads back as the same double (std::to_chars), so CSV and read-outs lose nothing.
QString formatExact(double value);
// Human display: grouped integers ("131,072") for large whole values, otherwise 4 significant digits.
QString formatReadable(double value);

// One column for x (or the category name), then one column per series, headers with units. Rows are the union of
// all x values in ascending order; a series without a point at an x leaves its cell empty.
QString chartDataToCsv(const ChartData& data);

} // namespace mfu::widgets
