#pragma once
// The busy-share heat map: one row per rank, one column per step number, each cell the share of that step's GPU
// window the rank's GPU was busy (core's trace::busyShareMatrix()), on a colour scale from 0 to 100% labelled with
// its unit. A rank that idles while the others work shows as a dark row, a slow step as a dark column; a blank cell
// is a step the rank did not analyse. Perceptually uniform colours (viridis stops), so lightness reads as busy.
// With few cells each cell also prints its value; hovering reads any cell out.
#include "core/trace/cross_rank.h"
#include "widgets/charts/bare_plot.h"

class QCPColorMap;
class QCPColorScale;

namespace mfu::widgets {

class BusyHeatMap : public BarePlot {
    Q_OBJECT
public:
    explicit BusyHeatMap(QWidget* parent = nullptr);

    void setMatrix(trace::BusyShareMatrix matrix);
    void clear();

    const trace::BusyShareMatrix& matrix() const { return m_matrix; }
    QCPColorMap* colourMap() const { return m_map; }
    QCPColorScale* colourScale() const { return m_scale; }
    // Cells whose value is printed in them (few cells only).
    int labelledCells() const { return m_labelled; }
    // The read-out for the cell under a position in plot pixels; empty when none.
    QString readoutAt(const QPointF& pos) const override;

private:
    void addCellLabels();

    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    trace::BusyShareMatrix m_matrix;
    int m_labelled = 0;
};

} // namespace mfu::widgets
