// mfu-explorer calibrate TRACE... [scenario flags] --out FILE: fits the cost model's step-time terms to what a traced
// run measured (core/calibration/trace_calibration.h) and writes the calibration that predict, sweep and plan take
// with --calibration. The scenario flags describe the traced run, as predict takes them; --gpu defaults to the GPU
// the trace names.
#include <QCommandLineParser>

#include "app/cli/calibration_flags.h"
#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/cli/commands.h"
#include "app/cli/scenario_flags.h"
#include "app/preset_store.h"
#include "core/calibration/calibration_file.h"
#include "core/calibration/calibration_text.h"
#include "core/calibration/trace_calibration.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "core/presets/gpu_match.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/run_reader.h"

namespace mfu::cli {

namespace {

// The options of both parses: the one the user gave, and the one with --gpu taken from the trace.
void addCalibrateOptions(QCommandLineParser& parser)
{
    addScenarioOptions(parser);
    addJsonOption(parser);
    parser.addOption(
        { QStringLiteral("out"), QStringLiteral("Write the calibration to FILE (atomic)"), QStringLiteral("FILE") });
    parser.addOption(option(QStringLiteral("kernel-rules"),
        QStringLiteral("Kernel classification rules (JSON), tried before the built-in ones; repeatable"),
        QStringLiteral("FILE")));
}

// The trace files or folders, as given (what the calibration records).
std::vector<std::string> tracePaths(const QCommandLineParser& parser)
{
    std::vector<std::string> paths;
    for (const QString& p : parser.positionalArguments()) {
        paths.push_back(p.toStdString());
        noteEchoedName(paths.back()); // printed as given
    }
    if (paths.empty())
        throw InputError("give the trace to calibrate from (a Kineto JSON/.gz, an Nsight Systems SQLite export, or a "
                         "folder of ranks)");
    return paths;
}

// Every file the command reads: the traces as given and as read (a folder's ranks), and the files its flags name.
// `--out` over one of them replaced the trace with its own calibration.
QStringList inputFiles(const QCommandLineParser& parser, const trace::RunAnalysis& run)
{
    QStringList files = parser.positionalArguments();
    for (const trace::RankAnalysis& r : run.ranks)
        files << qs(r.sourceFile);
    const QStringList named = parser.optionNames();
    for (const char* flag : { "scenario", "model", "kernel-rules", "doc-lengths" })
        if (named.contains(QLatin1String(flag)))
            files << parser.values(QLatin1String(flag));
    return files;
}

trace::RunAnalysis readTraces(const QCommandLineParser& parser, const std::vector<std::string>& paths)
{
    std::vector<std::string> ruleFiles;
    for (const QString& f : parser.values(QStringLiteral("kernel-rules")))
        ruleFiles.push_back(f.toStdString());
    return trace::readAndAnalyzeRun(
        trace::expandRunPaths({ paths.begin(), paths.end() }), trace::kernelRulesWithUserFiles(ruleFiles), {});
}

// The preset of the GPU the trace names, when --gpu is not given and exactly one preset matches it.
std::optional<std::string> tracedGpuPreset(const trace::RunAnalysis& run)
{
    for (const trace::RankAnalysis& r : run.ranks)
        if (r.gpuName)
            return matchGpuName(*r.gpuName, app::presetLibrary().hardware()).presetId;
    return std::nullopt;
}

// "  GEMM shapes (M x N x K), the longest 5 of 13 (all in the file):" and the lines shown; "" when none was traced.
QString shapeListText(const QString& title, size_t total, const std::vector<std::string>& shown)
{
    if (shown.empty())
        return {};
    QString t
        = QStringLiteral("  %1, the longest %2 of %3 (all in the file):\n").arg(title).arg(shown.size()).arg(total);
    for (const std::string& line : shown)
        t += QStringLiteral("    ") + qs(line) + QLatin1Char('\n');
    return t;
}

QString text(const TraceCalibration& c, const QString& out)
{
    QString t = QStringLiteral("Calibrated on %1 step(s) of %2 rank(s) (%3), %4 per step measured\n")
                    .arg(c.steps)
                    .arg(c.ranks)
                    .arg(qs(c.gpuName.empty() ? c.traced.cluster.hardware.name : c.gpuName))
                    .arg(qs(formatMilliseconds(c.measuredStepSeconds)));
    t += QStringLiteral("  %1 %2 %3 %4  %5\n")
             .arg(QStringLiteral("term"), -14)
             .arg(QStringLiteral("measured"), 12)
             .arg(QStringLiteral("predicted"), 12)
             .arg(QStringLiteral("factor"), 7)
             .arg(QStringLiteral("evidence"));
    for (const TermFit& f : c.fits)
        t += QStringLiteral("  %1 %2 %3 %4  %5\n")
                 .arg(qs(calibratedTermKey(f.term)), -14)
                 .arg(qs(formatMilliseconds(f.measuredSeconds)), 12)
                 .arg(qs(formatMilliseconds(f.predictedSeconds)), 12)
                 .arg(f.fitted ? QString::number(f.factor, 'f', 3) : QStringLiteral("1 (-)"), 7)
                 .arg(qs(f.evidence));
    // Communication and overhead are applied as stretches of what the links carry and the host issues, solved so
    // that the traced run waits what the trace measured (termScalesOf): their factor above is measured over
    // predicted waiting, the stretch is what other layouts get.
    QStringList stretches;
    const auto stretch = [&](CalibratedTerm term, const char* what, double applied) {
        if (c.fits[static_cast<size_t>(term)].fitted)
            stretches << QStringLiteral("%1 x %2").arg(QLatin1String(what)).arg(applied, 0, 'f', 3);
    };
    stretch(CalibratedTerm::Communication, "links", c.scales.communication);
    stretch(CalibratedTerm::Overhead, "host", c.scales.overhead);
    if (!stretches.isEmpty())
        t += QStringLiteral("  applied as stretches of what the links carry and the host issues: %1\n")
                 .arg(stretches.join(QStringLiteral(", ")));
    t += QStringLiteral("  step: measured %1, predicted %2 uncalibrated, %3 calibrated (%4%5%)\n")
             .arg(qs(formatMilliseconds(c.measuredStepSeconds)))
             .arg(qs(formatMilliseconds(c.uncalibratedStepSeconds)))
             .arg(qs(formatMilliseconds(c.replayStepSeconds)))
             .arg(c.replayError() >= 0 ? QStringLiteral("+") : QString())
             .arg(100 * c.replayError(), 0, 'f', 1);
    t += shapeListText(QStringLiteral("GEMM shapes (M x N x K)"), c.gemmShapes.size(), gemmShapeLines(c, 5));
    t += shapeListText(QStringLiteral("attention shapes"), c.attentionShapes.size(), attentionShapeLines(c, 4));
    if (!out.isEmpty())
        t += QStringLiteral("  written to %1: give it to predict, sweep or plan with --calibration\n").arg(out);
    return t;
}

} // namespace

int runCalibrate(const QStringList& args)
{
    const QString cmd = QStringLiteral("calibrate");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Fit the cost model's terms to a traced run. TRACE... the traced run's trace files or a folder of "
        "ranks; the scenario flags describe the traced run"));
    addCalibrateOptions(parser);
    parser.addPositionalArgument(QStringLiteral("TRACE"), QStringLiteral("Trace files or a folder of ranks"));
    if (auto exit = parseArguments(parser, args, cmd))
        return *exit;
    return runSubcommand(cmd, [&] {
        const std::vector<std::string> paths = tracePaths(parser);
        const trace::RunAnalysis run = readTraces(parser, paths);
        // A trace with no step to fit says so first: the scenario's flags (--gpu, which an empty trace cannot name)
        // were otherwise the error, and no flag would have made it calibrate.
        refuseRanksWithoutSteps(run);
        if (parser.isSet(QStringLiteral("out")))
            refuseWritingOverInput(parser.value(QStringLiteral("out")), inputFiles(parser, run), QStringLiteral("out"));
        QCommandLineParser described;
        addCalibrateOptions(described);
        QStringList words = args;
        if (!parser.isSet(QStringLiteral("gpu")) && !parser.isSet(QStringLiteral("scenario")))
            if (const auto preset = tracedGpuPreset(run))
                words.insert(1, QStringLiteral("--gpu=") + qs(*preset)); // before any "--" ending the options
        if (!described.parse(words))
            throw InputError(described.errorText().toStdString());
        const TraceCalibration c = calibrateFromTrace(scenarioFromFlags(described), run, paths);
        const QString out = parser.value(QStringLiteral("out"));
        if (!out.isEmpty())
            writeCalibrationFile(out.toStdString(), c);
        if (parser.isSet(QStringLiteral("json"))) {
            nlohmann::json j = calibrationToJson(c);
            j["written_to"] = out.isEmpty() ? nlohmann::json() : nlohmann::json(out.toStdString());
            printJson(j);
        } else {
            printText(text(c, out));
        }
        return 0;
    });
}

} // namespace mfu::cli
