// MainWindow's exports: File > Export Chart (the current panel's chart) and File > Export Report (app/report).
#include "app/main_window.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QTabWidget>

#include "app/preset_store.h"
#include "app/report/report_writer.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::app {

bool MainWindow::exportReport(const QString& path)
{
    const ScenarioDocument document = currentDocument();
    const QString title = m_scenarioPath.isEmpty()
        ? tr("MFU report")
        : tr("MFU report: %1").arg(QFileInfo(m_scenarioPath).completeBaseName());
    const bool html = path.endsWith(QStringLiteral(".html"), Qt::CaseInsensitive)
        || path.endsWith(QStringLiteral(".htm"), Qt::CaseInsensitive);
    ReportResult result;
    QString error;
    const bool written = html ? writeReportHtml(path, title, document, presetLibrary(), &result, &error)
                              : writeReportPdf(path, title, document, presetLibrary(), &result, &error);
    if (!written) {
        tell(tr("Report not written: %1").arg(error), true);
        return false;
    }
    tell(tr("Saved the report to %1.").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainWindow::exportReportInteractively()
{
    const QString start = m_scenarioPath.isEmpty()
        ? QDir::home().filePath(QStringLiteral("mfu-report.pdf"))
        : QFileInfo(m_scenarioPath).dir().filePath(QFileInfo(m_scenarioPath).completeBaseName() + ".pdf");
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export report"), start, tr("PDF report (*.pdf);;HTML report with PNG charts (*.html)"));
    if (path.isEmpty())
        return;
    if (!exportReport(path))
        QMessageBox::warning(this, tr("Export failed"), m_lastMessage);
}

widgets::ChartView* MainWindow::currentChart() const
{
    QWidget* panel = m_tabs->currentWidget();
    if (!panel)
        return nullptr;
    for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget())
        if (auto* chart = qobject_cast<widgets::ChartView*>(w); chart && panel->isAncestorOf(chart))
            return chart;
    return panel->findChild<widgets::ChartView*>();
}

bool MainWindow::exportCurrentChart(const QString& path)
{
    widgets::ChartView* chart = currentChart();
    if (!chart) {
        tell(tr("The %1 panel has no chart to export.").arg(m_tabs->tabText(m_tabs->currentIndex())), true);
        return false;
    }
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
        if (chart->exportInteractively())
            tell(tr("Chart saved."));
        return;
    }
    tell(tr("The %1 panel has no chart to export.").arg(m_tabs->tabText(m_tabs->currentIndex())), true);
}

} // namespace mfu::app
