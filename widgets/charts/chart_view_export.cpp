// ChartView: exports, hover read-out and context menu (the drawing side is in chart_view.cpp).
#include "widgets/charts/chart_view.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QToolTip>

#include <qcustomplot.h>

#include "core/io/atomic_file.h"

namespace mfu::widgets {

namespace {

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error)
{
    std::string reason;
    if (writeFileAtomically(QFile::encodeName(path).toStdString(),
            std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), &reason))
        return true;
    *error = QStringLiteral("Cannot save %1: %2")
                 .arg(QDir::toNativeSeparators(path), QString::fromLocal8Bit(reason.c_str()));
    return false;
}

// The hover marker belongs to the screen, not to what is exported: hidden while a chart renders for a file.
class TracerHidden {
public:
    explicit TracerHidden(QCPItemTracer* tracer)
        : m_tracer(tracer)
        , m_wasVisible(tracer->visible())
    {
        m_tracer->setVisible(false);
    }
    ~TracerHidden() { m_tracer->setVisible(m_wasVisible); }
    TracerHidden(const TracerHidden&) = delete;
    TracerHidden& operator=(const TracerHidden&) = delete;

private:
    QCPItemTracer* m_tracer;
    bool m_wasVisible;
};

} // namespace

bool ChartView::fail(const QString& message)
{
    m_lastError = message;
    return false;
}

QSize ChartView::exportSize() const
{
    // A chart that was never shown still has QWidget's default geometry; give headless exports a sensible size.
    if (!m_plot->testAttribute(Qt::WA_WState_Created) || m_plot->width() < 200 || m_plot->height() < 150)
        return { 800, 500 };
    return m_plot->size();
}

bool ChartView::renderPng(QByteArray& bytes, double scale)
{
    const QSize size = exportSize();
    layoutLegendFor(size);
    const TracerHidden hidden(m_tracer);
    const QPixmap pixmap = m_plot->toPixmap(size.width(), size.height(), scale);
    bytes.clear();
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (pixmap.isNull() || !pixmap.save(&buffer, "PNG"))
        return fail(QStringLiteral("Cannot render PNG at %1x%2 px")
                        .arg(qRound(size.width() * scale))
                        .arg(qRound(size.height() * scale)));
    return true;
}

bool ChartView::exportPng(const QString& path, double scale)
{
    // Rendered in memory first, so a failed write never leaves a half-written image over the previous one.
    QByteArray bytes;
    return renderPng(bytes, scale) && writeAtomically(path, bytes, &m_lastError);
}

bool ChartView::exportSvg(const QString& path)
{
    const QSize size = exportSize();
    layoutLegendFor(size);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(m_data.title);
    const TracerHidden hidden(m_tracer);
    QCPPainter painter;
    if (!painter.begin(&generator))
        return fail(QStringLiteral("Cannot render SVG"));
    // Vectorized and uncached so text stays text (searchable, sharp) instead of cached label pixmaps.
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    m_plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return writeAtomically(path, buffer.data(), &m_lastError);
}

bool ChartView::exportPdf(const QString& path)
{
    // One page the size of the chart, in points (72 dpi: one pixel of the on-screen chart is one point), rendered
    // in memory and then written atomically, as QCustomPlot::savePdf would but without writing the file in place.
    const QSize size = exportSize();
    layoutLegendFor(size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("MFU Explorer"));
        writer.setTitle(m_data.title);
        writer.setResolution(72);
        writer.setPageLayout(QPageLayout(QPageSize(size, QPageSize::Point, QString(), QPageSize::ExactMatch),
            QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        const TracerHidden hidden(m_tracer);
        QCPPainter painter;
        if (!painter.begin(&writer))
            return fail(QStringLiteral("Cannot render PDF %1").arg(QDir::toNativeSeparators(path)));
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        // Cosmetic (zero-width) pens would print as hairlines at the printer's resolution.
        painter.setMode(QCPPainter::pmNonCosmetic);
        m_plot->toPainter(&painter, size.width(), size.height());
        painter.end();
    }
    return writeAtomically(path, bytes, &m_lastError);
}

bool ChartView::exportCsv(const QString& path)
{
    return writeAtomically(path, chartDataToCsv(m_data).toUtf8(), &m_lastError);
}

bool ChartView::exportTo(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return exportPng(path);
    if (suffix == QLatin1String("svg"))
        return exportSvg(path);
    if (suffix == QLatin1String("pdf"))
        return exportPdf(path);
    if (suffix == QLatin1String("csv"))
        return exportCsv(path);
    return fail(QStringLiteral("Cannot export to %1: unknown format '%2' (use .png, .svg, .pdf or .csv)")
                    .arg(QDir::toNativeSeparators(path), suffix));
}

QString ChartView::exportFileFilter()
{
    return QStringLiteral(
        "PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf);;Chart data as CSV (*.csv)");
}

bool ChartView::exportInteractively(const QString& suggestedSuffix)
{
    QString base = m_data.title.isEmpty() ? QStringLiteral("chart") : m_data.title;
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("_"));
    QString selectedFilter;
    const QStringList filters = exportFileFilter().split(QStringLiteral(";;"));
    for (const QString& f : filters)
        if (f.contains(QStringLiteral("*.") + suggestedSuffix))
            selectedFilter = f;
    // The folder of the last chart exported in this session: exporting several charts, one after another, to the
    // same folder should not start from the home folder each time.
    static QString lastFolder = QDir::homePath();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"),
        QDir(lastFolder).filePath(base + QLatin1Char('.') + suggestedSuffix), exportFileFilter(), &selectedFilter);
    if (path.isEmpty())
        return false;
    lastFolder = QFileInfo(path).absolutePath();
    if (exportTo(path))
        return true;
    QMessageBox::warning(this, tr("Export failed"), m_lastError);
    return false;
}

ChartView::Hit ChartView::nearestPoint(const QPointF& pos) const
{
    Hit best;
    double bestDistance = m_plot->selectionTolerance();
    for (int i = 0; i < m_plottables.size(); ++i) {
        QVariant details;
        const double distance = m_plottables[i]->selectTest(pos, false, &details);
        if (distance < 0 || distance > bestDistance)
            continue;
        const auto selection = details.value<QCPDataSelection>();
        if (selection.isEmpty() || selection.dataRange().begin() >= m_data.series[i].x.size())
            continue;
        best = { i, selection.dataRange().begin() };
        bestDistance = distance;
    }
    return best;
}

QString ChartView::readoutAt(const QPointF& pos) const
{
    const Hit hit = nearestPoint(pos);
    if (hit.series < 0)
        return {};
    const ChartSeries& s = m_data.series[hit.series];
    const double x = s.x[hit.point];
    const int category = static_cast<int>(x);
    const QString xText = !m_data.categories.isEmpty() && category >= 0 && category < m_data.categories.size()
        ? m_data.categories[category]
        : formatReadable(x) + (m_data.xAxis.unit.isEmpty() ? QString() : QLatin1Char(' ') + m_data.xAxis.unit);
    const QString unit = m_data.unitOf(s);
    const QString name = hit.point < s.labels.size() ? s.labels[hit.point] + QLatin1Char('\n') + s.name : s.name;
    if (s.withoutValue)
        return QStringLiteral("%1\n%2: %3\n%4: none").arg(name, m_data.xAxis.label, xText, m_data.yAxis.label);
    return QStringLiteral("%1\n%2: %3\n%4: %5%6")
        .arg(name, m_data.xAxis.label, xText, m_data.yAxis.label, formatReadable(s.y[hit.point]),
            unit.isEmpty() ? QString() : QLatin1Char(' ') + unit);
}

void ChartView::onMouseMove(QMouseEvent* event)
{
    const QPointF pos = event->position();
    const Hit hit = nearestPoint(pos);
    const QString text = readoutAt(pos);
    if (hit.series >= 0) {
        const ChartSeries& s = m_data.series[hit.series];
        double top = s.y[hit.point];
        // A stacked bar's read-out marks the top of its own segment.
        for (int below = s.stackedOn; below >= 0; below = m_data.series[below].stackedOn) {
            const auto& b = m_data.series[below];
            const auto it = std::find(b.x.begin(), b.x.end(), s.x[hit.point]);
            if (it != b.x.end())
                top += b.y[static_cast<int>(it - b.x.begin())];
        }
        m_tracer->position->setCoords(s.x[hit.point], top);
        m_tracer->setVisible(true);
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    } else {
        m_tracer->setVisible(false);
        QToolTip::hideText();
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    if (text != m_hoverText) {
        m_hoverText = text;
        emit hovered(text);
    }
}

void ChartView::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(tr("Save as PNG..."), this, [this] { exportInteractively(QStringLiteral("png")); });
    menu.addAction(tr("Save as SVG..."), this, [this] { exportInteractively(QStringLiteral("svg")); });
    menu.addAction(tr("Save as PDF..."), this, [this] { exportInteractively(QStringLiteral("pdf")); });
    menu.addAction(tr("Export data as CSV..."), this, [this] { exportInteractively(QStringLiteral("csv")); });
    menu.addSeparator();
    menu.addAction(tr("Reset zoom"), this, [this] { rescale(); });
    menu.exec(m_plot->mapToGlobal(pos));
}

} // namespace mfu::widgets
