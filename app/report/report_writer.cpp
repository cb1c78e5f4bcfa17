#include "app/report/report_writer.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPdfWriter>
#include <QTextOption>
#include <QtMath>

#include <qcustomplot.h>

#include "app/report/report_charts.h"
#include "app/scenario_io.h"
#include "app/validation_store.h"
#include "core/errors.h"
#include "core/io/atomic_file.h"
#include "core/presets/presets.h"
#include "core/report/report_figures.h"
#include "core/trace/builtin_kernel_rules.h"
#include "widgets/qt_text.h"
#include "widgets/trace/trace_import.h"

namespace mfu::app {

namespace {

QString subtitle()
{
    return QStringLiteral("MFU Explorer %1 - %2")
        .arg(QStringLiteral(MFU_VERSION_STRING), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
}

// Qt's text layout is superlinear in an unbroken run of characters that must be broken anywhere (a 100,000-character
// file name or kernel name took minutes), and no reader needs more than a few lines of one: longer text is cut
// before layout, saying how much was left out.
constexpr qsizetype kMaxLaidOutChars = 1000;

QString forLayout(const QString& content)
{
    if (content.size() <= kMaxLaidOutChars)
        return content;
    return content.left(kMaxLaidOutChars)
        + QStringLiteral("... (%1 more characters)").arg(content.size() - kMaxLaidOutChars);
}

// Top-to-bottom layout on A4 pages with a page break whenever the next block does not fit. Coordinates are
// points (the writer runs at 72 dpi), so font point sizes and chart sizes mean what they say on paper.
class PdfLayout {
public:
    PdfLayout(QPdfWriter& writer, QCPPainter& painter)
        : m_writer(writer)
        , m_painter(painter)
        , m_width(writer.width())
        , m_height(writer.height())
    {
    }

    int pages() const { return m_pages; }

    void text(const QString& fullContent, double pointSize, bool bold = false, QColor color = Qt::black, int x = 0,
        int width = -1, bool advance = true, int* heightOut = nullptr)
    {
        const QString content = forLayout(fullContent);
        QFont font = QGuiApplication::font();
        font.setPointSizeF(pointSize);
        font.setBold(bold);
        m_painter.setFont(font);
        m_painter.setPen(color);
        const QRectF box(x, m_y, width < 0 ? m_width - x : width, 10000);
        const int needed = qCeil(m_painter.boundingRect(box, content, wrapping()).height());
        if (advance)
            ensure(needed);
        m_painter.drawText(QRectF(x, m_y, box.width(), needed), content, wrapping());
        if (heightOut)
            *heightOut = needed;
        if (advance)
            m_y += needed;
    }

    int measure(const QString& fullContent, double pointSize, int width, bool bold = false)
    {
        const QString content = forLayout(fullContent);
        QFont font = QGuiApplication::font();
        font.setPointSizeF(pointSize);
        font.setBold(bold);
        m_painter.setFont(font);
        return qCeil(m_painter.boundingRect(QRectF(0, 0, width, 10000), content, wrapping()).height());
    }

    void space(int points) { m_y += points; }

    // `following`: the height of what comes first under the heading (its first row, note or chart), which must
    // fit on the same page: a heading is never left alone at the foot of a page.
    void heading(const QString& title, int following)
    {
        ensure(10 + measure(title, 13, m_width, true) + 8 + following);
        space(10);
        text(title, 13, true, QColor(0x1f, 0x3b, 0x73));
        m_painter.setPen(QColor(0x1f, 0x3b, 0x73));
        m_painter.drawLine(QLineF(0, m_y + 2, m_width, m_y + 2));
        space(6);
    }

    int rowHeight(const ReportRow& r)
    {
        const int labelWidth = m_width * 30 / 100;
        const int valueWidth = m_width * 32 / 100;
        const int noteWidth = m_width - (labelWidth + valueWidth + 8);
        return std::max({ measure(qs(r.label), 9, labelWidth - 6), measure(qs(r.value), 9, valueWidth, true),
                   measure(qs(r.note), 8, noteWidth) })
            + 3;
    }

    int noteHeight(const QString& note) { return measure(note, 8, m_width); }

    int chartHeight() const { return m_width * 55 / 100 + 40; }

    void row(const ReportRow& r)
    {
        const int labelWidth = m_width * 30 / 100;
        const int valueWidth = m_width * 32 / 100;
        const int noteX = labelWidth + valueWidth + 8;
        const int noteWidth = m_width - noteX;
        const int h = rowHeight(r) - 3;
        ensure(h + 3);
        text(qs(r.label), 9, false, QColor(0x44, 0x44, 0x44), 0, labelWidth - 6, false);
        text(qs(r.value), 9, true, Qt::black, labelWidth, valueWidth, false);
        text(qs(r.note), 8, false, QColor(0x70, 0x70, 0x70), noteX, noteWidth, false);
        m_y += h + 3;
    }

    void chart(widgets::ChartView& view, const QString& caption)
    {
        const int w = m_width;
        const int h = m_width * 55 / 100;
        ensure(chartHeight());
        space(8);
        m_painter.save();
        m_painter.translate(0, m_y);
        m_painter.setMode(QCPPainter::pmVectorized);
        m_painter.setMode(QCPPainter::pmNoCaching);
        // Drawn 1.4x larger and scaled down: the chart's point-size fonts then fit a printed page's width.
        constexpr double kShrink = 1.4;
        m_painter.scale(1.0 / kShrink, 1.0 / kShrink);
        // The legend placed for the size drawn at, not the never-shown widget's: it stays inside the page's margin.
        view.layoutLegendFor(QSize(int(w * kShrink), int(h * kShrink)));
        view.plot()->toPainter(&m_painter, int(w * kShrink), int(h * kShrink));
        m_painter.restore();
        m_y += h + 4;
        text(caption, 8, false, QColor(0x55, 0x55, 0x55));
    }

private:
    // Words wrap at spaces; a word wider than its column (a trace's file path) breaks where it must, not off the page.
    static QTextOption wrapping()
    {
        QTextOption option;
        option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        return option;
    }

    void ensure(int h)
    {
        if (m_y + h <= m_height || m_y == 0)
            return;
        m_writer.newPage();
        ++m_pages;
        m_y = 0;
    }

    QPdfWriter& m_writer;
    QCPPainter& m_painter;
    int m_width;
    int m_height;
    int m_y = 0;
    int m_pages = 1;
};

bool fail(QString* errorMessage, const QString& path, const QString& reason)
{
    if (errorMessage)
        *errorMessage = QStringLiteral("Could not write %1: %2").arg(QDir::toNativeSeparators(path), reason);
    return false;
}

} // namespace

bool isHtmlReportPath(const QString& path)
{
    return path.endsWith(QStringLiteral(".html"), Qt::CaseInsensitive)
        || path.endsWith(QStringLiteral(".htm"), Qt::CaseInsensitive);
}

QString htmlReportImagesFolderName(const QString& htmlPath)
{
    return QFileInfo(htmlPath).completeBaseName() + QStringLiteral("_files");
}

bool reportPathIsWritable(const QString& path, QString* errorMessage)
{
    // The format follows the name: a PDF under a .txt name would open as neither.
    if (!isHtmlReportPath(path) && !path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive))
        return fail(errorMessage, path,
            QStringLiteral("a report is a PDF (.pdf) or an HTML page (.html, .htm); end the name with one of those"));
    const std::string why = whyFileCannotBeWritten(QFile::encodeName(path).toStdString());
    return why.empty() || fail(errorMessage, path, QString::fromLocal8Bit(why.c_str()));
}

ReportFigures reportFiguresFor(const ScenarioDocument& document, std::vector<HardwareSpec> knownHardware,
    const std::function<void(double)>& progress, const std::atomic<bool>* cancel,
    std::optional<ReportCalibration> calibration)
{
    ReportOptions options;
    options.calibration = std::move(calibration);
    options.plan = true;
    options.sweeps = true;
    options.errorBands = &shippedErrorBands();
    options.knownHardware = std::move(knownHardware);
    options.progress = progress;
    options.cancel = cancel;
    options.predictCommand = predictCommandOf(document.scenario);
    std::optional<trace::KernelRules> rules;
    try {
        rules = trace::builtInKernelRules();
        options.traceRules = &*rules;
    } catch (const InputError& e) {
        ReportFigures figures = reportFigures(document, options);
        figures.notes.push_back(std::string("Trace breakdown: ") + e.what());
        return figures;
    }
    return reportFigures(document, options);
}

ReportFigures reportFiguresFor(
    const ScenarioDocument& document, const PresetLibrary& presets, std::optional<ReportCalibration> calibration)
{
    return reportFiguresFor(document, presets.hardware(), {}, nullptr, std::move(calibration));
}

bool writeReportPdf(const QString& path, const QString& title, const ScenarioDocument& document,
    const PresetLibrary& presets, ReportResult* result, QString* errorMessage)
{
    return writeReportPdf(path, title, document, reportFiguresFor(document, presets), presets, result, errorMessage);
}

bool writeReportHtml(const QString& path, const QString& title, const ScenarioDocument& document,
    const PresetLibrary& presets, ReportResult* result, QString* errorMessage)
{
    return writeReportHtml(path, title, document, reportFiguresFor(document, presets), presets, result, errorMessage);
}

bool writeReportPdf(const QString& path, const QString& title, const ScenarioDocument& document,
    const ReportFigures& figures, const PresetLibrary& presets, ReportResult* result, QString* errorMessage)
{
    const std::vector<ReportChart> charts = buildReportCharts(document, figures, presets);

    // The PDF is built in memory and written in one atomic step: a full disk never leaves half a report.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    int pages = 0;
    {
        QPdfWriter writer(&buffer);
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("MFU Explorer"));
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(18, 18, 18, 18), QPageLayout::Millimeter);
        writer.setResolution(72);
        QCPPainter painter;
        if (!painter.begin(&writer))
            return fail(errorMessage, path, QStringLiteral("cannot start the PDF"));
        PdfLayout layout(writer, painter);
        layout.text(title, 18, true, QColor(0x1f, 0x3b, 0x73));
        layout.text(subtitle(), 8, false, QColor(0x70, 0x70, 0x70));
        for (const auto& section : figures.sections) {
            layout.heading(qs(section.title), section.rows.empty() ? 0 : layout.rowHeight(section.rows.front()));
            for (const auto& row : section.rows)
                layout.row(row);
        }
        if (!figures.notes.empty()) {
            layout.heading(QStringLiteral("Not in this report"), layout.noteHeight(qs(figures.notes.front())));
            for (const auto& note : figures.notes)
                layout.text(qs(note), 8, false, QColor(0x55, 0x55, 0x55));
        }
        layout.heading(QStringLiteral("Charts"), charts.empty() ? 0 : layout.chartHeight());
        for (const auto& chart : charts) {
            layout.chart(*chart.view, chart.caption);
            if (result)
                result->charts << chart.stem;
        }
        painter.end();
        pages = layout.pages();
    }
    std::string reason;
    if (!writeFileAtomically(QFile::encodeName(path).toStdString(),
            std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), &reason))
        return fail(errorMessage, path, QString::fromLocal8Bit(reason.c_str()));
    if (result) {
        result->pages = pages;
        result->files << path;
    }
    return true;
}

bool writeReportHtml(const QString& path, const QString& title, const ScenarioDocument& document,
    const ReportFigures& figures, const PresetLibrary& presets, ReportResult* result, QString* errorMessage)
{
    const std::vector<ReportChart> charts = buildReportCharts(document, figures, presets);

    const QFileInfo info(path);
    const QString folderName = htmlReportImagesFolderName(path);
    const QString folder = info.absoluteDir().filePath(folderName);
    const bool folderExisted = QFileInfo(folder).isDir();
    if (!QDir().mkpath(folder))
        return fail(errorMessage, folder, QStringLiteral("cannot create the folder for the chart images"));

    QString html
        = QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title>\n"
                         "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
                         "h1,h2{color:#1f3b73}table{border-collapse:collapse;width:100%}"
                         "td{padding:2px 8px;vertical-align:top;border-bottom:1px solid #eee;overflow-wrap:anywhere}"
                         "td.v{font-weight:bold}td.n{color:#777;font-size:90%}"
                         "figure{margin:1.5em 0}img{max-width:100%}figcaption{color:#555}</style>"
                         "</head><body>\n<h1>%1</h1>\n<p class=\"n\">%2</p>\n")
              .arg(title.toHtmlEscaped(), subtitle().toHtmlEscaped());
    for (const auto& section : figures.sections) {
        html += QStringLiteral("<h2>%1</h2>\n<table>\n").arg(qs(section.title).toHtmlEscaped());
        for (const auto& row : section.rows)
            html
                += QStringLiteral("<tr><td>%1</td><td class=\"v\">%2</td><td class=\"n\">%3</td></tr>\n")
                       .arg(qs(row.label).toHtmlEscaped(), qs(row.value).toHtmlEscaped(), qs(row.note).toHtmlEscaped());
        html += QStringLiteral("</table>\n");
    }
    if (!figures.notes.empty()) {
        html += QStringLiteral("<h2>Not in this report</h2>\n<ul>\n");
        for (const auto& note : figures.notes)
            html += QStringLiteral("<li>%1</li>\n").arg(qs(note).toHtmlEscaped());
        html += QStringLiteral("</ul>\n");
    }
    html += QStringLiteral("<h2>Charts</h2>\n");
    // The images and the page are written together, the page last: a full disk or a refused target leaves the old
    // page with all of its old images, never some of the new scenario's among them.
    QStringList written;
    std::vector<FileToWrite> files;
    for (const auto& chart : charts) {
        const QString png = folder + QLatin1Char('/') + chart.stem + QStringLiteral(".png");
        QByteArray bytes;
        if (!chart.view->renderPng(bytes, 2.0))
            return fail(errorMessage, png, chart.view->lastError());
        files.push_back({ QFile::encodeName(png).toStdString(), bytes.toStdString() });
        written << png;
        html += QStringLiteral("<figure><img src=\"%1/%2.png\" alt=\"%3\"><figcaption>%4</figcaption></figure>\n")
                    .arg(folderName.toHtmlEscaped(), chart.stem, chart.view->data().title.toHtmlEscaped(),
                        chart.caption.toHtmlEscaped());
        if (result)
            result->charts << chart.stem;
    }
    html += QStringLiteral("</body></html>\n");

    files.push_back({ QFile::encodeName(path).toStdString(), html.toStdString() }); // UTF-8
    std::string reason;
    std::string failed;
    if (!writeFilesAtomically(files, &reason, &failed)) {
        if (!folderExisted)
            QDir().rmdir(folder); // empty: nothing was renamed into it
        return fail(errorMessage, QFile::decodeName(failed.c_str()), QString::fromLocal8Bit(reason.c_str()));
    }
    if (result)
        result->files << written << path;
    return true;
}

} // namespace mfu::app
