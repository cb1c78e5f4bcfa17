#include "widgets/trace/rank_progress.h"

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace mfu::widgets {

RankProgress::RankProgress(QStringList fileNames)
    : names(std::move(fileNames))
    , m_permille(static_cast<size_t>(names.size()))
{
}

void RankProgress::set(size_t file, double fraction)
{
    if (file < m_permille.size())
        m_permille[file].store(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
}

double RankProgress::fraction(size_t file) const
{
    return file < m_permille.size() ? m_permille[file].load() / 1000.0 : 0.0;
}

size_t RankProgress::done() const
{
    return static_cast<size_t>(std::count_if(
        m_permille.begin(), m_permille.end(), [](const std::atomic<int>& p) { return p.load() >= 1000; }));
}

RankProgressView::RankProgressView(QWidget* parent)
    : QWidget(parent)
{
    setAccessibleName(tr("Progress of each rank"));
}

void RankProgressView::setProgress(std::shared_ptr<const RankProgress> progress)
{
    m_progress = std::move(progress);
    setAccessibleDescription(summary());
    update();
}

void RankProgressView::refresh()
{
    setAccessibleDescription(summary());
    update();
}

QString RankProgressView::summary() const
{
    if (!m_progress)
        return {};
    return tr("%1 of %n rank(s) read", nullptr, static_cast<int>(m_progress->names.size()))
        .arg(QLocale().toString(static_cast<qulonglong>(m_progress->done())));
}

QSize RankProgressView::sizeHint() const
{
    return { 360, fontMetrics().height() + 6 };
}

QSize RankProgressView::minimumSizeHint() const
{
    return { 160, fontMetrics().height() + 6 };
}

QRect RankProgressView::cellsRect() const
{
    const int text = fontMetrics().horizontalAdvance(tr("%1 of %n rank(s) read", nullptr, 88888).arg(88888)) + 12;
    return QRect(text, 3, std::max(10, width() - text - 2), height() - 6);
}

int RankProgressView::cellAt(const QPoint& pos) const
{
    const QRect cells = cellsRect();
    if (!m_progress || m_progress->names.isEmpty() || !cells.contains(pos))
        return -1;
    const int n = static_cast<int>(m_progress->names.size());
    return std::clamp(static_cast<int>((pos.x() - cells.left()) * static_cast<double>(n) / cells.width()), 0, n - 1);
}

void RankProgressView::paintEvent(QPaintEvent*)
{
    if (!m_progress)
        return;
    QPainter p(this);
    p.setPen(palette().color(QPalette::WindowText));
    const QRect cells = cellsRect();
    p.drawText(QRect(0, 0, cells.left() - 6, height()), Qt::AlignRight | Qt::AlignVCenter, summary());
    const int n = static_cast<int>(m_progress->names.size());
    const QColor empty = palette().color(QPalette::Mid);
    const QColor fill = palette().color(QPalette::Highlight);
    for (int i = 0; i < n; ++i) {
        // Cells share the width; a gap between them while they are wide enough to keep one.
        const int x0 = cells.left() + static_cast<int>(static_cast<double>(i) * cells.width() / n);
        const int x1 = cells.left() + static_cast<int>(static_cast<double>(i + 1) * cells.width() / n);
        const int w = std::max(1, x1 - x0 - (x1 - x0 >= 6 ? 2 : 0));
        const QRect cell(x0, cells.top(), w, cells.height());
        p.fillRect(cell, empty);
        const double f = m_progress->fraction(static_cast<size_t>(i));
        const int h = static_cast<int>(std::lround(f * cells.height()));
        p.fillRect(QRect(x0, cells.bottom() + 1 - h, w, h), fill);
    }
}

bool RankProgressView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int i = cellAt(help->pos());
        if (i >= 0)
            QToolTip::showText(help->globalPos(),
                tr("%1: %2% read")
                    .arg(m_progress->names[i])
                    .arg(std::lround(m_progress->fraction(static_cast<size_t>(i)) * 100)),
                this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace mfu::widgets
