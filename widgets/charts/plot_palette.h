#pragma once
// Colours a bare QCustomPlot (the views ChartView cannot draw: box plots, colour maps) from the widget palette, as
// ChartView colours its own plots: background from Base, axes, ticks, labels, title and legend text from Text, grid
// lines blended between the two, so the same view reads on a light and a dark theme.
#include <QPalette>

class QCustomPlot;

namespace mfu::widgets {

void applyPlotPalette(QCustomPlot* plot, const QPalette& palette);

// a, moved towards b by t in [0, 1]: grid lines between the background and the text, muted series.
QColor blendColors(const QColor& a, const QColor& b, double t);

} // namespace mfu::widgets
