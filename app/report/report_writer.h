#pragma once
// The report of a scenario: one PDF (QPdfWriter, charts drawn as vectors by the shared ChartView's plot), and an
// HTML page with the charts as PNGs in a folder beside it (<name>_files/). Both hold the same sections (the
// scenario, FLOP/token, measured and predicted MFU, step-time breakdown, the prediction calibrated to a trace when one
// is given, the planner's best configuration, cost and savings, and the breakdown of the scenario's traces with their
// chart) and the same charts.
// Needs a QApplication (charts are widgets); the `report` subcommand runs one offscreen.
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "core/report/report_figures.h"
#include "core/scenario/scenario_file.h"

namespace mfu {
class PresetLibrary;
}

namespace mfu::app {

struct ReportResult {
    int pages = 0; // PDF pages
    QStringList files; // everything written
    QStringList charts; // chart stems, in order
};

// The figures both writers draw: the planner's best, the sweeps with their error bands, the scenario's traces read
// with the built-in kernel rules, and the diagnosis against every GPU preset (a test reads the charts built from
// these, buildReportCharts, to check them against the command line). Seconds on a large cluster: the window runs it
// on a worker thread, which is why it takes the GPU presets as a copy, with progress and cancel (throws
// trace::Cancelled when cancelled). It needs no QApplication; the writers below do.
// `calibration`: a trace calibration to show beside the prediction (the window's, or `report --calibration`'s).
ReportFigures reportFiguresFor(const ScenarioDocument& document, std::vector<HardwareSpec> knownHardware,
    const std::function<void(double)>& progress = {}, const std::atomic<bool>* cancel = nullptr,
    std::optional<ReportCalibration> calibration = std::nullopt);
ReportFigures reportFiguresFor(const ScenarioDocument& document, const PresetLibrary& presets,
    std::optional<ReportCalibration> calibration = std::nullopt);

// Whether a report at `path` is the HTML page (a name ending in .html or .htm) rather than a PDF.
bool isHtmlReportPath(const QString& path);
// The folder beside an HTML report that holds its chart PNGs: "<name>_files" (report.html: report_files).
QString htmlReportImagesFolderName(const QString& htmlPath);
// Before the seconds the figures take: false, with the writers' own message ("Could not write PATH: REASON") in
// *errorMessage, when the report could not be written at `path` (whyFileCannotBeWritten), or when its name ends in
// neither .pdf nor .html/.htm (the format follows the name).
bool reportPathIsWritable(const QString& path, QString* errorMessage);

// Each returns false with a message naming the file and the reason in *errorMessage. Given the figures, they only
// lay them out (a PDF and an HTML page of one document share one computation); without, they compute them first.
bool writeReportPdf(const QString& path, const QString& title, const ScenarioDocument& document,
    const ReportFigures& figures, const PresetLibrary& presets, ReportResult* result, QString* errorMessage);
bool writeReportHtml(const QString& path, const QString& title, const ScenarioDocument& document,
    const ReportFigures& figures, const PresetLibrary& presets, ReportResult* result, QString* errorMessage);
bool writeReportPdf(const QString& path, const QString& title, const ScenarioDocument& document,
    const PresetLibrary& presets, ReportResult* result, QString* errorMessage);
bool writeReportHtml(const QString& path, const QString& title, const ScenarioDocument& document,
    const PresetLibrary& presets, ReportResult* result, QString* errorMessage);

} // namespace mfu::app
