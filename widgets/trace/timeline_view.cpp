#include "widgets/trace/timeline_view.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

constexpr int kAxisHeight = 34; // tick labels and the axis title
constexpr int kLegendRowHeight = 18; // one row of legend entries
constexpr int kLegendPadding = 4;
constexpr int kMaxLaneHeight = 22;
constexpr int kMinLanePitch = 8; // lane + gap: below this, lanes scroll instead of shrinking
constexpr int kStepBandHeight = 18;
constexpr int64_t kMinSpanNs = 2'000; // 2 us: a single short kernel fills the view

QString milliseconds(double ms, double step)
{
    const int decimals = step >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(step))));
    return QLocale().toString(ms, 'f', decimals);
}

// "void at::native::foo<...>(...)" -> "at::native::foo<...>(...)": the return type says nothing in a narrow box.
QString displayName(const std::string& name)
{
    const QString n = QString::fromStdString(name);
    return n.startsWith(QLatin1String("void ")) ? n.mid(5) : n;
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setMouseTracking(true);
    setAccessibleName(tr("GPU timeline"));
    setToolTip(tr("Wheel: zoom; drag: pan; double-click: show all; wheel over the lane names: scroll the lanes"));
    m_placeholder = tr("Open a trace to see its GPU streams here.");
    m_scroll->setVisible(false);
    m_scroll->setAccessibleName(tr("Scroll the timeline's lanes"));
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int value) {
        m_firstLane = value;
        update();
    });
    updateLegendHeight();
}

void TimelineView::setTimeline(std::shared_ptr<const trace::Timeline> timeline, std::vector<trace::Step> steps)
{
    std::vector<Track> tracks;
    if (timeline) {
        Track t;
        t.rank = timeline->rank.value_or(0);
        t.timeline = std::move(timeline);
        t.steps = std::move(steps);
        tracks.push_back(std::move(t));
    }
    rebuild(std::move(tracks));
}

void TimelineView::setRankTimelines(std::vector<RankTimeline> ranks)
{
    std::vector<Track> tracks;
    for (auto& r : ranks) {
        if (!r.timeline)
            continue;
        Track t;
        t.rank = r.rank;
        t.timeline = std::move(r.timeline);
        t.steps = std::move(r.steps);
        tracks.push_back(std::move(t));
    }
    // One rank keeps its file's clock (times read as in the file); several share the absolute clock.
    if (tracks.size() > 1)
        for (Track& t : tracks)
            t.offsetNs = t.timeline->timeOriginNs;
    rebuild(std::move(tracks));
}

void TimelineView::rebuild(std::vector<Track> tracks)
{
    m_tracks = std::move(tracks);
    std::array<bool, trace::kKernelCategoryCount> present {};
    for (const Track& t : m_tracks)
        for (const auto& a : t.timeline->activities)
            present[static_cast<size_t>(a.category)] = true;
    m_categories.clear();
    for (int c = 0; c < trace::kKernelCategoryCount; ++c)
        if (present[static_cast<size_t>(c)])
            m_categories.push_back(static_cast<trace::KernelCategory>(c));
    m_lanes.clear();
    m_steps.clear();
    m_dataStart = m_dataEnd = 0;
    bool any = false;
    for (size_t k = 0; k < m_tracks.size(); ++k) {
        Track& track = m_tracks[k];
        const auto& acts = track.timeline->activities;
        std::map<std::pair<int32_t, int32_t>, Lane> lanes;
        for (size_t i = 0; i < acts.size(); ++i) { // activities are sorted by start, so each lane is too
            Lane& lane = lanes[{ acts[i].device, acts[i].stream }];
            lane.track = k;
            lane.device = acts[i].device;
            lane.stream = acts[i].stream;
            lane.activities.push_back(i);
            lane.longestNs = std::max(lane.longestNs, acts[i].durationNs());
            const int64_t start = acts[i].startNs + track.offsetNs;
            const int64_t end = acts[i].endNs + track.offsetNs;
            m_dataStart = any ? std::min(m_dataStart, start) : start;
            m_dataEnd = any ? std::max(m_dataEnd, end) : end;
            any = true;
        }
        for (auto& [key, lane] : lanes)
            m_lanes.push_back(std::move(lane));
        // The steps every other view analyses (core/trace/steps.h): the CPU ProfilerStep annotations' GPU windows
        // where the loop wrote them. The GPU-side copies PyTorch 2.11 writes are 0 ms to a third of a step long, and
        // the band drawn from them was empty.
        for (const trace::Step& step : track.steps) {
            track.stepStarts.push_back(step.windowStartNs + track.offsetNs);
            if (k == 0)
                m_steps.push_back(
                    { step.windowStartNs + track.offsetNs, step.windowEndNs + track.offsetNs, step.number });
        }
    }
    const QFontMetrics fm(font());
    m_gutter = std::max(fm.horizontalAdvance(tr("Time (ms)")), fm.horizontalAdvance(tr("Steps, rank %1").arg(0)));
    for (int i = 0; i < laneCount(); ++i)
        m_gutter = std::max(m_gutter, fm.horizontalAdvance(laneLabel(i)));
    m_gutter = std::clamp(m_gutter + 16, 100, 260);
    updateLegendHeight();
    m_scroll->setValue(0);
    m_firstLane = 0;
    updateGeometry();
    updateScrollBar();
    showAll();
}

void TimelineView::clear()
{
    rebuild({});
}

void TimelineView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    update();
}

QString TimelineView::laneLabel(int lane) const
{
    if (lane < 0 || lane >= laneCount())
        return {};
    const Lane& l = m_lanes[static_cast<size_t>(lane)];
    if (m_tracks.size() <= 1)
        return tr("GPU %1 stream %2").arg(l.device).arg(l.stream);
    const int rank = m_tracks[l.track].rank;
    const bool oneDevice = std::all_of(m_lanes.begin(), m_lanes.end(),
        [&l](const Lane& other) { return other.track != l.track || other.device == l.device; });
    return oneDevice ? tr("Rank %1 · stream %2").arg(rank).arg(l.stream)
                     : tr("Rank %1 · GPU %2 s%3").arg(rank).arg(l.device).arg(l.stream);
}

int TimelineView::laneTrack(int lane) const
{
    return lane < 0 || lane >= laneCount() ? -1 : static_cast<int>(m_lanes[static_cast<size_t>(lane)].track);
}

void TimelineView::setVisibleRange(int64_t startNs, int64_t endNs)
{
    if (endNs - startNs < kMinSpanNs) {
        const int64_t mid = startNs / 2 + endNs / 2;
        startNs = mid - kMinSpanNs / 2;
        endNs = startNs + kMinSpanNs;
    }
    // Keep the view over the data (with a little slack) so panning cannot lose it.
    const int64_t span = endNs - startNs;
    const int64_t slack = std::max<int64_t>(span / 20, 1);
    if (startNs < m_dataStart - slack) {
        startNs = m_dataStart - slack;
        endNs = startNs + span;
    }
    if (endNs > m_dataEnd + slack) {
        endNs = m_dataEnd + slack;
        startNs = endNs - span;
    }
    m_viewStart = startNs;
    m_viewEnd = endNs;
    update();
}

void TimelineView::showAll()
{
    const int64_t span = std::max<int64_t>(m_dataEnd - m_dataStart, kMinSpanNs);
    m_viewStart = m_dataStart - span / 100;
    m_viewEnd = m_dataStart + span + span / 100;
    update();
}

void TimelineView::zoom(double factor, double anchor)
{
    const double span = static_cast<double>(m_viewEnd - m_viewStart);
    const double newSpan = std::max(span / factor, static_cast<double>(kMinSpanNs));
    const double at = static_cast<double>(m_viewStart) + anchor * span;
    const auto start = static_cast<int64_t>(std::llround(at - anchor * newSpan));
    setVisibleRange(start, start + static_cast<int64_t>(std::llround(newSpan)));
}

QSize TimelineView::sizeHint() const
{
    return { 800,
        kAxisHeight + m_legendHeight + kStepBandHeight + std::max(1, std::min(laneCount(), 12)) * (kMaxLaneHeight + 4)
            + 12 };
}

QSize TimelineView::minimumSizeHint() const
{
    return { 300, kAxisHeight + m_legendHeight + kStepBandHeight + kMaxLaneHeight + 12 };
}

int TimelineView::gutter() const
{
    return m_gutter;
}

QRect TimelineView::plotRect() const
{
    const int right = !m_scroll->isHidden() ? m_scroll->width() + 4 : 8;
    return QRect(gutter(), kAxisHeight, std::max(1, width() - gutter() - right),
        std::max(1, height() - kAxisHeight - m_legendHeight));
}

QRect TimelineView::stepRect() const
{
    const QRect plot = plotRect();
    return QRect(plot.left(), plot.top() + 4, plot.width(), kStepBandHeight);
}

namespace {

// Lanes fill the height between the step band and the legend: up to kMaxLaneHeight each, down to kMinLanePitch.
struct LaneGeometry {
    int top = 0;
    int pitch = 0;
    int gap = 0;
    int capacity = 0;
};

LaneGeometry laneGeometry(const QRect& plot, int lanes, bool severalRanks)
{
    LaneGeometry g;
    g.gap = severalRanks ? 2 : 4;
    g.top = plot.top() + 4 + kStepBandHeight + g.gap;
    const int available = std::max(1, plot.bottom() - g.top - 2);
    g.pitch = std::clamp(available / std::max(1, lanes), kMinLanePitch, kMaxLaneHeight + g.gap);
    g.capacity = std::max(1, available / g.pitch);
    return g;
}

} // namespace

int TimelineView::visibleLaneCapacity() const
{
    return laneGeometry(plotRect(), laneCount(), m_tracks.size() > 1).capacity;
}

int TimelineView::laneHeight() const
{
    const LaneGeometry g = laneGeometry(plotRect(), laneCount(), m_tracks.size() > 1);
    return g.pitch - g.gap;
}

void TimelineView::updateScrollBar()
{
    // Decided on the plot without the bar; the bar then takes its width from the plot, which only adds height.
    m_scroll->setHidden(true);
    const int capacity = visibleLaneCapacity();
    const bool overflow = laneCount() > capacity;
    m_scroll->setHidden(!overflow);
    const int top = kAxisHeight + 4 + kStepBandHeight;
    m_scroll->setGeometry(width() - m_scroll->sizeHint().width(), top, m_scroll->sizeHint().width(),
        std::max(10, height() - top - m_legendHeight));
    m_scroll->setRange(0, overflow ? laneCount() - capacity : 0);
    m_scroll->setPageStep(capacity);
    m_firstLane = m_scroll->value();
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateLegendHeight();
    updateScrollBar();
}

QRect TimelineView::laneRect(int lane) const
{
    const QRect plot = plotRect();
    const LaneGeometry g = laneGeometry(plot, laneCount(), m_tracks.size() > 1);
    return QRect(plot.left(), g.top + (lane - m_firstLane) * g.pitch, plot.width(), g.pitch - g.gap);
}

double TimelineView::xOf(int64_t ns) const
{
    const QRect plot = plotRect();
    return plot.left()
        + static_cast<double>(ns - m_viewStart) / static_cast<double>(m_viewEnd - m_viewStart) * plot.width();
}

int64_t TimelineView::nsAt(double x) const
{
    const QRect plot = plotRect();
    return m_viewStart
        + static_cast<int64_t>(
            std::llround((x - plot.left()) / plot.width() * static_cast<double>(m_viewEnd - m_viewStart)));
}

size_t TimelineView::firstVisible(const Lane& lane, int64_t fromNs) const
{
    const Track& track = m_tracks[lane.track];
    const auto& acts = track.timeline->activities;
    // An activity starting before fromNs - longest cannot reach fromNs.
    const int64_t earliest = fromNs - track.offsetNs - lane.longestNs;
    auto it = std::lower_bound(lane.activities.begin(), lane.activities.end(), earliest,
        [&acts](size_t i, int64_t ns) { return acts[i].startNs < ns; });
    return static_cast<size_t>(it - lane.activities.begin());
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    m_lastRects = 0;
    m_lastBinned = 0;
    if (m_lanes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const QRect plot = plotRect();
    paintAxis(p, plot);
    paintSteps(p);
    const QFontMetrics fm(font());
    const bool laneLabels = laneHeight() >= fm.height() - 2;
    const bool severalRanks = m_tracks.size() > 1;
    int trackFrom = -1; // first visible lane of the current rank, for a rank label when lanes are too thin
    for (int i = m_firstLane; i < laneCount(); ++i) {
        const QRect lane = laneRect(i);
        if (lane.bottom() > plot.bottom() + 1)
            break;
        const Lane& l = m_lanes[static_cast<size_t>(i)];
        if (severalRanks && (i == m_firstLane || l.track != m_lanes[static_cast<size_t>(i) - 1].track)) {
            if (i != m_firstLane) { // a rule between ranks
                p.setPen(palette().color(QPalette::Mid));
                p.drawLine(4, lane.top() - 1, plot.right(), lane.top() - 1);
            }
            trackFrom = i;
        }
        p.setPen(palette().color(QPalette::Text));
        if (laneLabels)
            p.drawText(
                QRect(4, lane.top(), gutter() - 8, lane.height()), Qt::AlignRight | Qt::AlignVCenter, laneLabel(i));
        const bool lastOfTrack = i + 1 == laneCount() || m_lanes[static_cast<size_t>(i) + 1].track != l.track
            || laneRect(i + 1).bottom() > plot.bottom() + 1;
        if (!laneLabels && severalRanks && lastOfTrack) {
            const QRect group(4, laneRect(trackFrom).top(), gutter() - 8, lane.bottom() - laneRect(trackFrom).top());
            p.drawText(group.adjusted(0, -fm.height(), 0, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                tr("Rank %1").arg(m_tracks[l.track].rank));
        }
        p.fillRect(lane, palette().alternateBase());
        p.save();
        p.setClipRect(lane);
        paintLane(p, l, lane);
        p.restore();
    }
    if (severalRanks)
        paintRankSteps(p);
    paintLegend(p);
}

void TimelineView::paintAxis(QPainter& p, const QRect& plot)
{
    // Ticks at 1-2-5 steps in milliseconds since the first activity (of any rank shown).
    const double spanMs = static_cast<double>(m_viewEnd - m_viewStart) / 1e6;
    const double rough = spanMs / std::max(2, plot.width() / 110);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    const double step
        = rough / magnitude < 2 ? 2 * magnitude : (rough / magnitude < 5 ? 5 * magnitude : 10 * magnitude);
    const double firstMs = static_cast<double>(m_viewStart - m_dataStart) / 1e6;
    const QColor text = palette().color(QPalette::Text);
    QColor grid = palette().color(QPalette::Mid);
    p.setPen(text);
    p.drawText(QRect(0, 0, gutter() - 8, 16), Qt::AlignRight | Qt::AlignVCenter, tr("Time (ms)"));
    for (double ms = std::ceil(firstMs / step) * step; ms <= firstMs + spanMs; ms += step) {
        const double x = xOf(m_dataStart + static_cast<int64_t>(std::llround(ms * 1e6)));
        p.setPen(grid);
        p.drawLine(QPointF(x, plot.top() - 4), QPointF(x, plot.bottom()));
        p.setPen(text);
        p.drawText(QRectF(x - 55, 2, 110, 16), Qt::AlignCenter, milliseconds(ms, step));
    }
    if (m_tracks.size() > 1)
        p.drawText(QRect(gutter(), 18, plot.width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
            tr("%n ranks on the hosts' clocks (each file's time origin + its timestamps)", nullptr,
                static_cast<int>(m_tracks.size())));
}

void TimelineView::paintLane(QPainter& p, const Lane& lane, const QRect& rect)
{
    const Track& track = m_tracks[lane.track];
    const auto& acts = track.timeline->activities;
    const int64_t offset = track.offsetNs;
    const int columns = rect.width();
    // Per pixel column: nanoseconds of each sub-pixel activity by category; the largest paints the column.
    std::vector<std::array<int64_t, trace::kKernelCategoryCount>> bins;
    const double nsPerPixel = static_cast<double>(m_viewEnd - m_viewStart) / columns;
    for (size_t k = firstVisible(lane, m_viewStart); k < lane.activities.size(); ++k) {
        const trace::GpuActivity& a = acts[lane.activities[k]];
        const int64_t start = a.startNs + offset;
        const int64_t end = a.endNs + offset;
        if (start > m_viewEnd)
            break;
        if (end < m_viewStart)
            continue;
        const double x0 = xOf(start);
        const double x1 = xOf(end);
        if (x1 - x0 >= 2) {
            const QRectF r(QPointF(std::max(x0, rect.left() - 1.0), rect.top()),
                QPointF(std::min(x1, rect.right() + 1.0), rect.bottom() + 1));
            const QColor c = categoryColour(a.category);
            p.fillRect(r, c);
            p.setPen(c.darker(140));
            p.drawRect(r.adjusted(0, 0, -1, -1));
            if (r.width() > 40 && rect.height() >= QFontMetrics(font()).height() - 2) { // room for the name
                p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
                p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                    QFontMetrics(font()).elidedText(displayName(track.timeline->names.name(a.name)), Qt::ElideRight,
                        static_cast<int>(r.width()) - 6));
            }
            ++m_lastRects;
            continue;
        }
        if (bins.empty())
            bins.assign(static_cast<size_t>(columns), {});
        const int column = std::clamp(static_cast<int>((x0 + x1) / 2) - rect.left(), 0, columns - 1);
        const int64_t ns = std::max<int64_t>(a.durationNs(), 1);
        bins[static_cast<size_t>(column)][static_cast<size_t>(a.category)] += ns;
    }
    for (int column = 0; column < static_cast<int>(bins.size()); ++column) {
        const auto& bin = bins[static_cast<size_t>(column)];
        const auto best = std::max_element(bin.begin(), bin.end());
        if (*best == 0)
            continue;
        // Column height shows how busy the pixel is, so a sparse stretch does not look saturated.
        int64_t total = 0;
        for (int64_t v : bin)
            total += v;
        const double busy = std::min(1.0, static_cast<double>(total) / nsPerPixel);
        const int h = std::max(std::min(3, rect.height()), static_cast<int>(std::lround(busy * rect.height())));
        p.fillRect(QRect(rect.left() + column, rect.bottom() + 1 - h, 1, h),
            categoryColour(static_cast<trace::KernelCategory>(best - bin.begin())));
        ++m_lastBinned;
    }
}

// Each rank's own step starts over its lanes: with the ranks on one clock, a rank whose steps start late shows.
void TimelineView::paintRankSteps(QPainter& p)
{
    const QRect plot = plotRect();
    QColor line = palette().color(QPalette::Text);
    line.setAlphaF(0.55f);
    p.save();
    p.setClipRect(plot);
    p.setPen(QPen(line, 1, Qt::DashLine));
    for (size_t k = 0; k < m_tracks.size(); ++k) {
        int top = -1;
        int bottom = -1;
        for (int i = m_firstLane; i < laneCount(); ++i) {
            const QRect lane = laneRect(i);
            if (lane.bottom() > plot.bottom() + 1)
                break;
            if (m_lanes[static_cast<size_t>(i)].track != k)
                continue;
            top = top < 0 ? lane.top() : top;
            bottom = lane.bottom();
        }
        if (top < 0)
            continue;
        for (int64_t start : m_tracks[k].stepStarts)
            if (start >= m_viewStart && start <= m_viewEnd)
                p.drawLine(QPointF(xOf(start), top), QPointF(xOf(start), bottom));
    }
    p.restore();
}

void TimelineView::paintSteps(QPainter& p)
{
    const QRect band = stepRect();
    p.setPen(palette().color(QPalette::Text));
    const QString label = m_steps.empty() ? tr("No steps")
        : m_tracks.size() > 1             ? tr("Steps, rank %1").arg(m_tracks.front().rank)
                                          : tr("Steps");
    p.drawText(QRect(4, band.top(), gutter() - 8, band.height()), Qt::AlignRight | Qt::AlignVCenter, label);
    p.save();
    p.setClipRect(band);
    const QColor shades[] = { palette().color(QPalette::Mid), palette().color(QPalette::Midlight) };
    for (size_t i = 0; i < m_steps.size(); ++i) {
        const StepBand& s = m_steps[i];
        if (s.endNs < m_viewStart || s.startNs > m_viewEnd)
            continue;
        const QRectF r(QPointF(xOf(s.startNs), band.top()), QPointF(xOf(s.endNs), band.bottom() + 1));
        p.fillRect(r, shades[i % 2]);
        p.setPen(palette().color(QPalette::Text));
        const QRectF visible = r.intersected(QRectF(band));
        if (visible.width() > 30)
            p.drawText(visible, Qt::AlignCenter, QStringLiteral("ProfilerStep#%1").arg(s.number));
    }
    p.restore();
}

std::vector<TimelineView::LegendEntry> TimelineView::legendLayout() const
{
    std::vector<LegendEntry> entries;
    const QFontMetrics fm(font());
    const int left = gutter();
    const int right = std::max(left + 1, width() - 8);
    int x = left;
    int row = 0;
    for (const trace::KernelCategory category : m_categories) {
        const QString label = categoryLabel(trace::categoryKey(category));
        const int w = 16 + fm.horizontalAdvance(label);
        if (x > left && x + w > right) { // wrap; an entry wider than the row still gets a row of its own
            x = left;
            ++row;
        }
        entries.push_back({ category, label, QRect(x, row * kLegendRowHeight, w, kLegendRowHeight) });
        x += w + 14;
    }
    return entries;
}

// Laid out when the categories, the gutter or the width change, not in plotRect(), which every paint and hover
// calls.
void TimelineView::updateLegendHeight()
{
    int rows = 1;
    for (const LegendEntry& e : legendLayout())
        rows = std::max(rows, e.rect.top() / kLegendRowHeight + 1);
    m_legendHeight = rows * kLegendRowHeight + kLegendPadding;
}

void TimelineView::paintLegend(QPainter& p)
{
    const int top = height() - m_legendHeight + kLegendPadding;
    for (const LegendEntry& e : legendLayout()) {
        const int y = top + e.rect.top();
        p.fillRect(QRect(e.rect.left(), y + 2, 12, 12), categoryColour(e.category));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPoint(e.rect.left() + 16, y + 12), e.label);
    }
}

std::optional<TimelineView::Hit> TimelineView::hitAt(const QPoint& pos) const
{
    const QRect plot = plotRect();
    for (int i = m_firstLane; i < laneCount(); ++i) {
        const QRect rect = laneRect(i);
        if (rect.bottom() > plot.bottom() + 1)
            break;
        if (!rect.contains(pos))
            continue;
        const Lane& lane = m_lanes[static_cast<size_t>(i)];
        const Track& track = m_tracks[lane.track];
        // Within two pixels, so kernels narrower than a pixel can still be hovered.
        const int64_t from = nsAt(pos.x() - 2);
        const int64_t to = nsAt(pos.x() + 2);
        const int64_t at = nsAt(pos.x());
        std::optional<Hit> best;
        int64_t bestDistance = 0;
        for (size_t k = firstVisible(lane, from); k < lane.activities.size(); ++k) {
            const trace::GpuActivity& a = track.timeline->activities[lane.activities[k]];
            const int64_t start = a.startNs + track.offsetNs;
            const int64_t end = a.endNs + track.offsetNs;
            if (start > to)
                break;
            if (end < from)
                continue;
            const int64_t distance = at < start ? start - at : (at > end ? at - end : 0);
            if (!best || distance < bestDistance) {
                best = Hit { lane.track, lane.activities[k] };
                bestDistance = distance;
            }
        }
        return best;
    }
    return std::nullopt;
}

std::optional<size_t> TimelineView::activityAt(const QPoint& pos) const
{
    const auto hit = hitAt(pos);
    return hit ? std::optional(hit->activity) : std::nullopt;
}

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto hit = hitAt(help->pos())) {
            const Track& track = m_tracks[hit->track];
            const trace::GpuActivity& a = track.timeline->activities[hit->activity];
            const QLocale locale;
            QString text
                = tr("%1\n%2 · %3 µs · starts at %4 ms")
                      .arg(QString::fromStdString(track.timeline->names.name(a.name)),
                          categoryLabel(trace::categoryKey(a.category)),
                          locale.toString(static_cast<double>(a.durationNs()) / 1e3, 'f', 1),
                          locale.toString(static_cast<double>(a.startNs + track.offsetNs - m_dataStart) / 1e6, 'f', 3));
            if (m_tracks.size() > 1)
                text += tr(" · rank %1, GPU %2 stream %3").arg(track.rank).arg(a.device).arg(a.stream);
            QToolTip::showText(help->globalPos(), text, this);
        } else {
            QToolTip::showText(help->globalPos(), toolTip(), this);
        }
        return true;
    }
    return QWidget::event(e);
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QRect plot = plotRect();
    const double steps = event->angleDelta().y() / 120.0;
    if (event->position().x() < plot.left() && !m_scroll->isHidden()) {
        m_scroll->setValue(m_scroll->value() - static_cast<int>(std::lround(steps * 3)));
        event->accept();
        return;
    }
    const double anchor = std::clamp((event->position().x() - plot.left()) / plot.width(), 0.0, 1.0);
    zoom(std::pow(1.4, steps), anchor);
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_dragFrom = event->position().toPoint();
        m_dragViewStart = m_viewStart;
        setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (!m_dragFrom)
        return;
    const double dx = event->position().x() - m_dragFrom->x();
    const auto shift
        = static_cast<int64_t>(std::llround(dx / plotRect().width() * static_cast<double>(m_viewEnd - m_viewStart)));
    const int64_t span = m_viewEnd - m_viewStart;
    setVisibleRange(m_dragViewStart - shift, m_dragViewStart - shift + span);
}

void TimelineView::mouseReleaseEvent(QMouseEvent*)
{
    m_dragFrom.reset();
    unsetCursor();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*)
{
    showAll();
}

} // namespace mfu::widgets
