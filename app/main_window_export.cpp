// MainWindow's exports: File > Export Chart (the current panel's chart), File > Export Report (app/report) and
// Edit > Copy Predict Command (the scenario as the command line states it).
#include "app/main_window.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QTabWidget>

#include "app/preset_store.h"
#include "app/report/report_writer.h"
#include "app/scenario_io.h"
#include "widgets/charts/chart_view.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::app {

bool MainWindow::copyPredictCommand()
{
    const PredictCommand command = predictCommandOf(m_scenario->scenario());
    if (!command.stated()) {
        tell(tr("No predict command states this scenario: %1.").arg(QString::fromStdString(command.unstatable)), true);
        return false;
    }
    const QString line = QString::fromStdString(shellCommandLine(command.arguments));
    QGuiApplication::clipboard()->setText(line);
    tell(tr("Copied to the clipboard: %1").arg(line));
    return true;
}

bool MainWindow::exportReport(const QString& path)
{
    // Refused at once: a mistyped folder should not cost the seconds the figures take.
    if (QString error; !reportPathIsWritable(path, &error)) {
        tell(tr("Report not written: %1").arg(error), true);
        return false;
    }
    const ScenarioDocument document = currentDocument();
    const QString title = m_scenarioPath.isEmpty()
        ? tr("MFU report")
        : tr("MFU report: %1").arg(QFileInfo(m_scenarioPath).completeBaseName());
    // The calibration Predict shows (the Trace panel's) is reported beside the prediction, as Predict shows it.
    std::optional<ReportCalibration> calibration;
    if (const auto& c = m_scenario->traceCalibration())
        calibration = ReportCalibration { *c, m_scenario->traceCalibrationSource().toStdString() };
    // The worker reads only its own copies: the document, the GPU presets (a diagnosis names other GPUs' peaks) and
    // the calibration.
    std::function<ReportFigures(widgets::JobControl&)> figuresOf
        = [document, hardware = presetLibrary().hardware(), calibration](widgets::JobControl& control) {
              return reportFiguresFor(
                  document, hardware, [&control](double f) { control.setProgress(f); }, &control.cancel, calibration);
          };
    std::function<void(ReportFigures&)> write = [this, document, title, path](ReportFigures& figures) {
        ReportResult result;
        QString error;
        const bool written = isHtmlReportPath(path)
            ? writeReportHtml(path, title, document, figures, presetLibrary(), &result, &error)
            : writeReportPdf(path, title, document, figures, presetLibrary(), &result, &error);
        reportEnded(written,
            written ? tr("Saved the report to %1.").arg(QDir::toNativeSeparators(path))
                    : tr("Report not written: %1").arg(error));
    };
    m_reportJob->start(std::move(figuresOf), std::move(write));
    tell(tr("Computing the report's figures for %1...").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainWindow::createReportJob()
{
    m_reportJob = new widgets::BackgroundJob(this);
    m_reportActivity = new widgets::Activity([this] { m_reportJob->cancel(); }, this);
    const auto show
        = [this] { m_reportActivity->update(tr("Report"), m_reportJob->isRunning(), m_reportJob->progress()); };
    connect(m_reportJob, &widgets::BackgroundJob::runningChanged, this, show);
    connect(m_reportJob, &widgets::BackgroundJob::progressChanged, this, show);
    connect(m_reportJob, &widgets::BackgroundJob::failed, this,
        [this](int, const QString& message) { reportEnded(false, tr("Report not written: %1").arg(message)); });
    connect(m_reportJob, &widgets::BackgroundJob::cancelled, this, [this](int) {
        m_warnWhenReportFails = false; // the user's own choice needs no message box
        reportEnded(false, tr("Report cancelled: nothing was written."));
    });
}

void MainWindow::reportEnded(bool written, const QString& message)
{
    tell(message, !written);
    const bool warn = m_warnWhenReportFails && !written;
    m_warnWhenReportFails = false;
    if (warn)
        QMessageBox::warning(this, tr("Export failed"), message);
    emit reportExported(written);
}

void MainWindow::exportReportInteractively()
{
    const QString start = m_scenarioPath.isEmpty()
        ? QDir::home().filePath(QStringLiteral("mfu-report.pdf"))
        : QFileInfo(m_scenarioPath).dir().filePath(QFileInfo(m_scenarioPath).completeBaseName() + ".pdf");
    const QString html = tr("HTML report with PNG charts (*.html)");
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export report"), start, tr("PDF report (*.pdf)") + QStringLiteral(";;") + html, &filter);
    if (path.isEmpty())
        return;
    // The format follows the name (reportPathIsWritable refuses any other): a name typed without one takes the
    // chosen filter's.
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == html ? QStringLiteral(".html") : QStringLiteral(".pdf");
    m_warnWhenReportFails = true;
    if (!exportReport(path)) {
        m_warnWhenReportFails = false;
        QMessageBox::warning(this, tr("Export failed"), m_lastMessage);
    }
}

widgets::ChartView* MainWindow::currentChart() const
{
    QWidget* panel = m_tabs->currentWidget();
    if (!panel)
        return nullptr;
    // Only a chart the user can see: the one with focus, else the first on screen. Focus stays on a chart whose tab
    // was left, and the panel's first chart may sit on a hidden tab (Ctrl+E wrote Training log's empty chart while
    // the Breakdown tab was showing).
    const auto onScreen = [panel](const widgets::ChartView* chart) { return chart->isVisibleTo(panel); };
    for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
        if (auto* chart = qobject_cast<widgets::ChartView*>(w); chart && panel->isAncestorOf(chart) && onScreen(chart))
            return chart;
    for (widgets::ChartView* chart : panel->findChildren<widgets::ChartView*>())
        if (onScreen(chart))
            return chart;
    return nullptr;
}

bool MainWindow::chartHasNothingToExport(const widgets::ChartView& chart)
{
    // A chart still computing (or with nothing to draw) shows a sentence in place of its data: exported, that
    // sentence would be saved as the chart ("Predicting each point of the sweep..." as a PNG), silently.
    const QString why = chart.emptyReason();
    if (why.isEmpty())
        return false;
    tell(tr("The chart has nothing to export yet: %1").arg(QString(why).replace(QLatin1Char('\n'), QLatin1Char(' '))),
        true);
    return true;
}

bool MainWindow::exportCurrentChart(const QString& path)
{
    widgets::ChartView* chart = currentChart();
    if (!chart) {
        tell(tr("The %1 panel has no chart to export.").arg(m_tabs->tabText(m_tabs->currentIndex())), true);
        return false;
    }
    if (chartHasNothingToExport(*chart))
        return false;
    if (!chart->exportTo(path)) {
        tell(chart->lastError(), true);
        return false;
    }
    tell(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainWindow::exportChartInteractively()
{
    if (widgets::ChartView* chart = currentChart()) {
        if (chartHasNothingToExport(*chart))
            return;
        if (chart->exportInteractively())
            tell(tr("Chart saved."));
        return;
    }
    tell(tr("The %1 panel has no chart to export.").arg(m_tabs->tabText(m_tabs->currentIndex())), true);
}

} // namespace mfu::app
