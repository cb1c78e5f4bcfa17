// `mfu-explorer report --scenario FILE.json --out report.pdf [--html report.html] [--calibration FILE]`: the
// scenario's report with no window (the subcommand table runs it under an offscreen QApplication). --out ending in
// .html writes the HTML page instead of a PDF; the PNGs go to <name>_files/ beside the page.
#include <QFileInfo>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/cli/subcommand.h"
#include "app/preset_store.h"
#include "app/report/report_subcommand.h"
#include "app/report/report_writer.h"
#include "app/scenario_io.h"
#include "core/calibration/calibration_file.h"
#include "core/errors.h"

namespace mfu::cli {

namespace {
// Refuses an output that cannot be written before the seconds the report's figures take, in the writers' words.
void refuseUnwritable(const QString& path)
{
    QString error;
    if (!app::reportPathIsWritable(path, &error))
        throw InputError(error.toStdString());
}

void write(bool pdf, const QString& path, const QString& title, const ScenarioDocument& doc,
    const ReportFigures& figures, app::ReportResult* result)
{
    QString error;
    const bool ok = pdf ? app::writeReportPdf(path, title, doc, figures, app::presetLibrary(), result, &error)
                        : app::writeReportHtml(path, title, doc, figures, app::presetLibrary(), result, &error);
    if (!ok)
        throw InputError(error.toStdString());
}
} // namespace

int runReport(const QStringList& args)
{
    const QString command = QStringLiteral("report");
    QCommandLineParser parser;
    parser.addOption(option(qs("scenario"), qs("Scenario file (.json) to report on"), qs("FILE")));
    parser.addOption(option(qs("out"), qs("Report to write: a .pdf, or a .html page with PNGs beside it"), qs("FILE")));
    parser.addOption(option(qs("html"), qs("Also write this HTML page (with its PNGs) next to the PDF"), qs("FILE")));
    parser.addOption(option(qs("title"), qs("Report title (default: the scenario file's name)"), qs("TEXT")));
    parser.addOption(option(qs("calibration"),
        qs("A calibration written by 'calibrate': add the prediction with each term as that trace measured it, beside "
           "the uncalibrated one"),
        qs("FILE")));
    addFlopFormulaOption(parser);
    addJsonOption(parser);
    if (auto status = parseArguments(parser, args, command))
        return *status;

    return runSubcommand(command, [&] {
        if (!parser.isSet(qs("scenario")))
            throw InputError("--scenario FILE.json is required");
        if (!parser.isSet(qs("out")))
            throw InputError("--out report.pdf (or report.html) is required");
        const QString scenarioPath = parser.value(qs("scenario"));
        // Its traces are the scenario file's, wherever the command runs: relative paths are its folder's.
        ScenarioDocument doc = withRunFilesResolved(app::openScenarioFile(scenarioPath), scenarioPath.toStdString());
        if (const auto formula = formulaFlag(parser)) // the file's formula unless the flag names another
            doc.scenario.mfuFormula = *formula;
        const QString title = parser.isSet(qs("title"))
            ? parser.value(qs("title"))
            : QStringLiteral("MFU report: %1").arg(QFileInfo(scenarioPath).completeBaseName());

        const QString out = parser.value(qs("out"));
        QStringList inputs { scenarioPath };
        for (const auto& p : doc.tracePaths)
            inputs << QString::fromStdString(p);
        for (const auto& p : doc.baselineTracePaths)
            inputs << QString::fromStdString(p);
        if (parser.isSet(qs("calibration")))
            inputs << parser.value(qs("calibration"));
        refuseWritingOverInput(out, inputs, qs("out"));
        if (parser.isSet(qs("html")))
            refuseWritingOverInput(parser.value(qs("html")), inputs, qs("html"));
        const bool outIsHtml = app::isHtmlReportPath(out);
        refuseUnwritable(out);
        if (parser.isSet(qs("html"))) {
            if (!app::isHtmlReportPath(parser.value(qs("html"))))
                throw InputError("--html: '" + parser.value(qs("html")).toStdString()
                    + "' is not an HTML page's name (end it in .html or .htm)");
            refuseUnwritable(parser.value(qs("html")));
        }
        // Read before the figures' seconds, as the output paths are checked: a wrong file fails at once.
        std::optional<ReportCalibration> calibration;
        if (parser.isSet(qs("calibration"))) {
            const QString file = parser.value(qs("calibration"));
            calibration = ReportCalibration { readCalibrationFile(file.toStdString()), file.toStdString() };
        }
        // One computation for both files: the planner and the sweeps are most of a report's time.
        const ReportFigures figures = app::reportFiguresFor(doc, app::presetLibrary(), std::move(calibration));
        // The HTML page first: it has more ways to fail (its images' folder), and a failure then replaces nothing.
        app::ReportResult html;
        if (parser.isSet(qs("html")))
            write(false, parser.value(qs("html")), title, doc, figures, &html);
        app::ReportResult result;
        write(!outIsHtml, out, title, doc, figures, &result);
        result.files << html.files;
        if (parser.isSet(qs("json"))) {
            nlohmann::json files = nlohmann::json::array();
            for (const auto& f : result.files)
                files.push_back(f.toStdString());
            nlohmann::json charts = nlohmann::json::array();
            for (const auto& c : result.charts)
                charts.push_back(c.toStdString());
            printJson({ { "out", out.toStdString() },
                { "pages", outIsHtml ? nlohmann::json() : nlohmann::json(result.pages) }, { "charts", charts },
                { "files", files } });
        } else {
            // Every file written is named: the page beside the PDF too, with the folder of its PNGs.
            const auto page = [](const QString& path, const app::ReportResult& r) {
                return QStringLiteral("%1 (%2 charts, their PNGs in %3)")
                    .arg(path)
                    .arg(r.charts.size())
                    .arg(app::htmlReportImagesFolderName(path));
            };
            QString wrote = outIsHtml
                ? page(out, result)
                : QStringLiteral("%1 (%2 pages, %3 charts)").arg(out).arg(result.pages).arg(result.charts.size());
            if (parser.isSet(qs("html")))
                wrote += QStringLiteral(" and ") + page(parser.value(qs("html")), html);
            printText(QStringLiteral("Wrote %1\n").arg(wrote));
        }
        return 0;
    });
}

void registerReportSubcommand()
{
    addSubcommand(
        { "report", "Render a scenario's report (PDF, or HTML with PNGs) without a window", true, runReport }, "cost");
}

} // namespace mfu::cli
