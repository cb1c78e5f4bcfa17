#pragma once
// TimelineView: the GPU activities of one rank, one lane per (device, stream), under a band of the profiler steps,
// on a time axis in milliseconds.
// Wheel zooms around the cursor down to single kernels, drag pans, double-click shows everything; hovering names
// the kernel. Painting stays cheap at any zoom: only activities in the visible range are visited (binary search on
// start time), and activities narrower than a pixel are binned per pixel column, each column drawn once in the
// colour of the category that covers most of it.
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/trace/timeline.h"

namespace mfu::widgets {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    // The timeline must outlive this view's use of it; shared so the panel can swap runs safely.
    void setTimeline(std::shared_ptr<const trace::Timeline> timeline);
    void clear();

    int laneCount() const { return static_cast<int>(m_lanes.size()); }
    QString laneLabel(int lane) const;
    // Visible range, file clock nanoseconds.
    int64_t viewStartNs() const { return m_viewStart; }
    int64_t viewEndNs() const { return m_viewEnd; }
    void setVisibleRange(int64_t startNs, int64_t endNs);
    void showAll();
    // Zooms by factor (> 1 zooms in) around a fraction 0..1 of the plot width.
    void zoom(double factor, double anchor = 0.5);
    // Where a stream's lane is drawn, in widget coordinates.
    QRect laneRect(int lane) const;
    int stepCount() const { return static_cast<int>(m_steps.size()); }
    // The activity under a widget position, as an index into Timeline::activities.
    std::optional<size_t> activityAt(const QPoint& pos) const;
    // What the last paint drew: separate rectangles and aggregated pixel columns (tests, and a sanity check).
    int lastRectCount() const { return m_lastRects; }
    int lastBinnedColumns() const { return m_lastBinned; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Lane {
        int32_t device = 0;
        int32_t stream = 0;
        std::vector<size_t> activities; // indices, sorted by start
        int64_t longestNs = 0; // bounds the backward search for activities that start before the view
    };
    struct StepBand {
        int64_t startNs = 0;
        int64_t endNs = 0;
        int64_t number = 0;
    };
    QRect plotRect() const;
    QRect stepRect() const;
    double xOf(int64_t ns) const;
    int64_t nsAt(double x) const;
    // First activity of the lane that may overlap [fromNs, ...).
    size_t firstVisible(const Lane& lane, int64_t fromNs) const;
    void paintAxis(QPainter& p, const QRect& plot);
    void paintLane(QPainter& p, const Lane& lane, const QRect& rect);
    void paintLegend(QPainter& p);
    void paintSteps(QPainter& p);

    std::shared_ptr<const trace::Timeline> m_timeline;
    std::vector<Lane> m_lanes;
    std::vector<StepBand> m_steps; // ProfilerStep#N annotations (GPU ones when present, else CPU ones)
    int64_t m_dataStart = 0;
    int64_t m_dataEnd = 0;
    int64_t m_viewStart = 0;
    int64_t m_viewEnd = 0;
    std::optional<QPoint> m_dragFrom;
    int64_t m_dragViewStart = 0;
    int m_lastRects = 0;
    int m_lastBinned = 0;
};

} // namespace mfu::widgets
