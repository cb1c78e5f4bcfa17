#pragma once
// TimelineView: the GPU activities of one rank, or of several ranks stacked on one aligned time axis, one lane per
// (rank, device, stream), under a band of the profiler steps, on a time axis in milliseconds.
// Several ranks are aligned on the absolute clock (each file's time origin + its timestamps: the hosts' clocks, as
// the collective-wait view assumes); each rank's own step starts are drawn as dashed lines over its lanes, so a rank
// that starts its steps late stands out. Lanes shrink to fit the height (down to a few pixels), then scroll.
// Wheel zooms around the cursor down to single kernels, drag pans, double-click shows everything; hovering names
// the kernel. Painting stays cheap at any zoom: only activities in the visible range are visited (binary search on
// start time), and activities narrower than a pixel are binned per pixel column, each column drawn once in the
// colour of the category that covers most of it.
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "core/trace/steps.h"
#include "core/trace/timeline.h"

class QScrollBar;

namespace mfu::widgets {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    struct RankTimeline {
        int rank = 0;
        std::shared_ptr<const trace::Timeline> timeline;
        std::vector<trace::Step> steps; // its analysed steps (trace::RankAnalysis::steps), drawn in the step band
    };

    // One rank on its file's own clock. The timeline must outlive this view's use of it; shared so the panel can
    // swap runs safely.
    // `steps` are its analysed steps (trace::RankAnalysis::steps: the steps every other view times), taken from the
    // analysis rather than planned again on the GUI thread.
    void setTimeline(std::shared_ptr<const trace::Timeline> timeline, std::vector<trace::Step> steps = {});
    // Several ranks on the absolute clock, stacked in the order given; the first one's steps label the step band.
    void setRankTimelines(std::vector<RankTimeline> ranks);
    void clear();
    // What the empty view says (e.g. why a run has no timelines).
    void setPlaceholder(const QString& text);

    int laneCount() const { return static_cast<int>(m_lanes.size()); }
    int rankCount() const { return static_cast<int>(m_tracks.size()); }
    QString laneLabel(int lane) const;
    // The rank a lane belongs to (its index in the ranks given).
    int laneTrack(int lane) const;
    // Visible range on the view's clock: the file's for one rank, absolute for several.
    int64_t viewStartNs() const { return m_viewStart; }
    int64_t viewEndNs() const { return m_viewEnd; }
    void setVisibleRange(int64_t startNs, int64_t endNs);
    void showAll();
    // Zooms by factor (> 1 zooms in) around a fraction 0..1 of the plot width.
    void zoom(double factor, double anchor = 0.5);
    // Where a stream's lane is drawn, in widget coordinates (outside the plot when scrolled away).
    QRect laneRect(int lane) const;
    int laneHeight() const;
    int firstVisibleLane() const { return m_firstLane; }
    int stepCount() const { return static_cast<int>(m_steps.size()); }
    // A step band's length: its GPU window (trace::Step::windowDurationNs), as the analysis times the step.
    int64_t stepDurationNs(int step) const
    {
        const StepBand& b = m_steps.at(static_cast<size_t>(step));
        return b.endNs - b.startNs;
    }
    // The activity under a widget position: the rank (index in the ranks given) and the index into its activities.
    struct Hit {
        size_t track = 0;
        size_t activity = 0;
    };
    std::optional<Hit> hitAt(const QPoint& pos) const;
    std::optional<size_t> activityAt(const QPoint& pos) const; // hitAt's activity index
    // What the last paint drew: separate rectangles and aggregated pixel columns (tests, and a sanity check).
    int lastRectCount() const { return m_lastRects; }
    int lastBinnedColumns() const { return m_lastBinned; }
    // The legend's entries laid out in rows that fit the width (a narrow window wraps them instead of cutting the
    // last ones off): each entry's rectangle, in widget x and in y from the legend's top.
    struct LegendEntry {
        trace::KernelCategory category;
        QString label;
        QRect rect;
    };
    std::vector<LegendEntry> legendLayout() const;
    int legendHeight() const { return m_legendHeight; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Track {
        int rank = 0;
        std::shared_ptr<const trace::Timeline> timeline;
        int64_t offsetNs = 0; // added to the file's timestamps: 0 for one rank, the time origin for several
        std::vector<trace::Step> steps; // the analysed steps, on the file's clock
        std::vector<int64_t> stepStarts; // on the view's clock
    };
    struct Lane {
        size_t track = 0;
        int32_t device = 0;
        int32_t stream = 0;
        std::vector<size_t> activities; // indices into the track's activities, sorted by start
        int64_t longestNs = 0; // bounds the backward search for activities that start before the view
    };
    struct StepBand {
        int64_t startNs = 0;
        int64_t endNs = 0;
        int64_t number = 0;
    };
    void rebuild(std::vector<Track> tracks);
    int gutter() const;
    int visibleLaneCapacity() const;
    void updateScrollBar();
    QRect plotRect() const;
    QRect stepRect() const;
    double xOf(int64_t ns) const;
    int64_t nsAt(double x) const;
    // First activity of the lane that may overlap [fromNs, ...) on the view's clock.
    size_t firstVisible(const Lane& lane, int64_t fromNs) const;
    void paintAxis(QPainter& p, const QRect& plot);
    void paintLane(QPainter& p, const Lane& lane, const QRect& rect);
    void paintRankSteps(QPainter& p);
    void paintLegend(QPainter& p);
    void paintSteps(QPainter& p);
    void updateLegendHeight();

    std::vector<Track> m_tracks;
    std::vector<trace::KernelCategory> m_categories; // present in the tracks, in category order (the legend)
    int m_legendHeight = 0; // the legend's rows at the current width (updateLegendHeight)
    std::vector<Lane> m_lanes;
    std::vector<StepBand> m_steps; // the first rank's analysed steps (RankTimeline::steps)
    QString m_placeholder;
    QScrollBar* m_scroll = nullptr;
    int m_firstLane = 0;
    int m_gutter = 120;
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
