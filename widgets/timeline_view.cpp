#include "widgets/timeline_view.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/trace/steps.h"
#include "widgets/trace_charts.h"

namespace mfu::widgets {

namespace {

constexpr int kGutter = 120; // lane labels
constexpr int kAxisHeight = 34; // tick labels and the axis title
constexpr int kLegendHeight = 22;
constexpr int kLaneHeight = 22;
constexpr int kLaneGap = 4;
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
{
    setMouseTracking(true);
    setAccessibleName(tr("GPU timeline"));
    setToolTip(tr("Wheel: zoom; drag: pan; double-click: show all"));
}

void TimelineView::setTimeline(std::shared_ptr<const trace::Timeline> timeline)
{
    m_timeline = std::move(timeline);
    m_lanes.clear();
    m_dataStart = m_dataEnd = 0;
    if (m_timeline && !m_timeline->activities.empty()) {
        std::map<std::pair<int32_t, int32_t>, Lane> lanes;
        const auto& acts = m_timeline->activities;
        m_dataStart = acts.front().startNs;
        m_dataEnd = acts.front().endNs;
        for (size_t i = 0; i < acts.size(); ++i) { // activities are sorted by start, so each lane is too
            Lane& lane = lanes[{ acts[i].device, acts[i].stream }];
            lane.device = acts[i].device;
            lane.stream = acts[i].stream;
            lane.activities.push_back(i);
            lane.longestNs = std::max(lane.longestNs, acts[i].durationNs());
            m_dataEnd = std::max(m_dataEnd, acts[i].endNs);
        }
        for (auto& [key, lane] : lanes)
            m_lanes.push_back(std::move(lane));
    }
    m_steps.clear();
    if (m_timeline) {
        const bool anyOnGpu = std::any_of(
            m_timeline->annotations.begin(), m_timeline->annotations.end(), [this](const trace::Annotation& a) {
                int64_t n = 0;
                return a.onGpu && trace::profilerStepNumber(m_timeline->names.name(a.name), n);
            });
        for (const auto& a : m_timeline->annotations) {
            int64_t n = 0;
            if (a.onGpu == anyOnGpu && trace::profilerStepNumber(m_timeline->names.name(a.name), n))
                m_steps.push_back({ a.startNs, a.endNs, n });
        }
    }
    updateGeometry();
    showAll();
}

void TimelineView::clear()
{
    setTimeline(nullptr);
}

QString TimelineView::laneLabel(int lane) const
{
    if (lane < 0 || lane >= laneCount())
        return {};
    const Lane& l = m_lanes[static_cast<size_t>(lane)];
    return tr("GPU %1 stream %2").arg(l.device).arg(l.stream);
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
        kAxisHeight + kLegendHeight + kStepBandHeight + std::max(1, laneCount()) * (kLaneHeight + kLaneGap) + 12 };
}

QSize TimelineView::minimumSizeHint() const
{
    return { 300, kAxisHeight + kLegendHeight + kStepBandHeight + kLaneHeight + 12 };
}

QRect TimelineView::plotRect() const
{
    return QRect(
        kGutter, kAxisHeight, std::max(1, width() - kGutter - 8), std::max(1, height() - kAxisHeight - kLegendHeight));
}

QRect TimelineView::stepRect() const
{
    const QRect plot = plotRect();
    return QRect(plot.left(), plot.top() + kLaneGap, plot.width(), kStepBandHeight);
}

QRect TimelineView::laneRect(int lane) const
{
    const QRect plot = plotRect();
    return QRect(plot.left(), plot.top() + kStepBandHeight + kLaneGap + lane * (kLaneHeight + kLaneGap) + kLaneGap,
        plot.width(), kLaneHeight);
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
    const auto& acts = m_timeline->activities;
    // An activity starting before fromNs - longest cannot reach fromNs.
    const int64_t earliest = fromNs - lane.longestNs;
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
        p.drawText(rect(), Qt::AlignCenter, tr("Open a trace to see its GPU streams here."));
        return;
    }
    const QRect plot = plotRect();
    paintAxis(p, plot);
    paintSteps(p);
    for (int i = 0; i < laneCount(); ++i) {
        const QRect lane = laneRect(i);
        if (lane.top() > plot.bottom())
            break;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, lane.top(), kGutter - 8, lane.height()), Qt::AlignRight | Qt::AlignVCenter, laneLabel(i));
        p.fillRect(lane, palette().alternateBase());
        p.save();
        p.setClipRect(lane);
        paintLane(p, m_lanes[static_cast<size_t>(i)], lane);
        p.restore();
    }
    paintLegend(p);
}

void TimelineView::paintAxis(QPainter& p, const QRect& plot)
{
    // Ticks at 1-2-5 steps in milliseconds since the first activity.
    const double spanMs = static_cast<double>(m_viewEnd - m_viewStart) / 1e6;
    const double rough = spanMs / std::max(2, plot.width() / 110);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    const double step
        = rough / magnitude < 2 ? 2 * magnitude : (rough / magnitude < 5 ? 5 * magnitude : 10 * magnitude);
    const double firstMs = static_cast<double>(m_viewStart - m_dataStart) / 1e6;
    const QColor text = palette().color(QPalette::Text);
    QColor grid = palette().color(QPalette::Mid);
    p.setPen(text);
    p.drawText(QRect(0, 0, kGutter - 8, 16), Qt::AlignRight | Qt::AlignVCenter, tr("Time (ms)"));
    for (double ms = std::ceil(firstMs / step) * step; ms <= firstMs + spanMs; ms += step) {
        const double x = xOf(m_dataStart + static_cast<int64_t>(std::llround(ms * 1e6)));
        p.setPen(grid);
        p.drawLine(QPointF(x, plot.top() - 4), QPointF(x, plot.bottom()));
        p.setPen(text);
        p.drawText(QRectF(x - 55, 2, 110, 16), Qt::AlignCenter, milliseconds(ms, step));
    }
}

void TimelineView::paintLane(QPainter& p, const Lane& lane, const QRect& rect)
{
    const auto& acts = m_timeline->activities;
    const int columns = rect.width();
    // Per pixel column: nanoseconds of each sub-pixel activity by category; the largest paints the column.
    std::vector<std::array<int64_t, trace::kKernelCategoryCount>> bins;
    const double nsPerPixel = static_cast<double>(m_viewEnd - m_viewStart) / columns;
    for (size_t k = firstVisible(lane, m_viewStart); k < lane.activities.size(); ++k) {
        const trace::GpuActivity& a = acts[lane.activities[k]];
        if (a.startNs > m_viewEnd)
            break;
        if (a.endNs < m_viewStart)
            continue;
        const double x0 = xOf(a.startNs);
        const double x1 = xOf(a.endNs);
        if (x1 - x0 >= 2) {
            const QRectF r(QPointF(std::max(x0, rect.left() - 1.0), rect.top()),
                QPointF(std::min(x1, rect.right() + 1.0), rect.bottom() + 1));
            const QColor c = categoryColour(a.category);
            p.fillRect(r, c);
            p.setPen(c.darker(140));
            p.drawRect(r.adjusted(0, 0, -1, -1));
            if (r.width() > 40) { // room for the name
                p.setPen(c.lightnessF() < 0.55 ? Qt::white : Qt::black);
                p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                    QFontMetrics(font()).elidedText(
                        displayName(m_timeline->names.name(a.name)), Qt::ElideRight, static_cast<int>(r.width()) - 6));
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
        const int h = std::max(3, static_cast<int>(std::lround(busy * rect.height())));
        p.fillRect(QRect(rect.left() + column, rect.bottom() + 1 - h, 1, h),
            categoryColour(static_cast<trace::KernelCategory>(best - bin.begin())));
        ++m_lastBinned;
    }
}

void TimelineView::paintSteps(QPainter& p)
{
    const QRect band = stepRect();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(4, band.top(), kGutter - 8, band.height()), Qt::AlignRight | Qt::AlignVCenter,
        m_steps.empty() ? tr("No steps") : tr("Steps"));
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

void TimelineView::paintLegend(QPainter& p)
{
    std::array<bool, trace::kKernelCategoryCount> present {};
    for (const auto& a : m_timeline->activities)
        present[static_cast<size_t>(a.category)] = true;
    int x = kGutter;
    const int y = height() - kLegendHeight + 4;
    const QFontMetrics fm(font());
    for (int c = 0; c < trace::kKernelCategoryCount; ++c) {
        if (!present[static_cast<size_t>(c)])
            continue;
        const auto category = static_cast<trace::KernelCategory>(c);
        const QString label = categoryLabel(trace::categoryKey(category));
        p.fillRect(QRect(x, y + 2, 12, 12), categoryColour(category));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPoint(x + 16, y + 12), label);
        x += 16 + fm.horizontalAdvance(label) + 14;
    }
}

std::optional<size_t> TimelineView::activityAt(const QPoint& pos) const
{
    if (!m_timeline)
        return std::nullopt;
    for (int i = 0; i < laneCount(); ++i) {
        if (!laneRect(i).contains(pos))
            continue;
        const Lane& lane = m_lanes[static_cast<size_t>(i)];
        // Within two pixels, so kernels narrower than a pixel can still be hovered.
        const int64_t from = nsAt(pos.x() - 2);
        const int64_t to = nsAt(pos.x() + 2);
        const int64_t at = nsAt(pos.x());
        std::optional<size_t> best;
        int64_t bestDistance = 0;
        for (size_t k = firstVisible(lane, from); k < lane.activities.size(); ++k) {
            const trace::GpuActivity& a = m_timeline->activities[lane.activities[k]];
            if (a.startNs > to)
                break;
            if (a.endNs < from)
                continue;
            const int64_t distance = at < a.startNs ? a.startNs - at : (at > a.endNs ? at - a.endNs : 0);
            if (!best || distance < bestDistance) {
                best = lane.activities[k];
                bestDistance = distance;
            }
        }
        return best;
    }
    return std::nullopt;
}

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto i = activityAt(help->pos())) {
            const trace::GpuActivity& a = m_timeline->activities[*i];
            const QLocale locale;
            QToolTip::showText(help->globalPos(),
                tr("%1\n%2 · %3 µs · starts at %4 ms")
                    .arg(QString::fromStdString(m_timeline->names.name(a.name)),
                        categoryLabel(trace::categoryKey(a.category)),
                        locale.toString(static_cast<double>(a.durationNs()) / 1e3, 'f', 1),
                        locale.toString(static_cast<double>(a.startNs - m_dataStart) / 1e6, 'f', 3)),
                this);
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
    const double anchor = std::clamp((event->position().x() - plot.left()) / plot.width(), 0.0, 1.0);
    const double steps = event->angleDelta().y() / 120.0;
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
