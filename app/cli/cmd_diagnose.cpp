// mfu-explorer diagnose FILE.json | --log FILE...: check what a run reported (a report's figures, or a training
// log's) and name each mistake with the corrected figure.
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/log_input.h"
#include "app/preset_store.h"
#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_json.h"
#include "core/diagnosis/diagnosis_report.h"
#include "core/errors.h"
#include "core/io/read_file.h"

namespace mfu::cli {

int runDiagnose(const QStringList& args)
{
    const QString command = QStringLiteral("diagnose");
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("FILE.json"),
        QStringLiteral("What the run(s) reported; keys documented in docs/cli.md (see examples/)"));
    parser.addOption(option(QStringLiteral("log"),
        QStringLiteral("A training log to check instead of FILE.json; repeat for runs to compare (e.g. 2 and 8 GPUs)"),
        QStringLiteral("FILE")));
    addLogOptions(parser);
    addModelOptions(parser);
    addClusterOptions(parser);
    addWorkloadOptions(parser);
    addPackingOptions(parser);
    addFlopFormulaOption(parser);
    parser.addOption(option(QStringLiteral("tokens-per-step"),
        QStringLiteral("With --log: global tokens per step, when the log does not print it"), QStringLiteral("N")));
    addJsonOption(parser);
    if (const auto exit = parseArguments(parser, args, command))
        return *exit;
    return runSubcommand(command, [&] {
        const QStringList files = parser.positionalArguments();
        const QStringList logs = parser.values(QStringLiteral("log"));
        const auto& presets = app::presetLibrary();
        std::vector<ReportedRun> runs;
        if (!logs.isEmpty()) {
            if (!files.isEmpty())
                throw InputError("give FILE.json or --log FILE, not both");
            const auto pattern = resolveLogPattern(parser);
            const size_t warmup = resolveWarmupSteps(parser);
            for (const QString& path : logs) {
                const trace::TrainingLog log = readTrainingLog(path, pattern);
                runs.push_back(trace::reportedRunFromLog(log, trace::summarizeLog(log, warmup),
                    logRunContext(parser, QFileInfo(path).fileName()), presets.hardware()));
                // A packed run: its documents, attention mask and padding, as FILE.json's packing keys give them.
                runs.back().seqLen = resolvePackedSeqLen(parser, runs.back().seqLen.value_or(0));
                if (*runs.back().seqLen == 0)
                    runs.back().seqLen.reset();
                runs.back().packing = resolvePacking(parser, runs.back().seqLen.value_or(0));
            }
        } else {
            if (files.size() != 1)
                throw InputError("expects exactly one FILE.json (or --log FILE)");
            for (const char* flag : { "model", "params", "gpu", "gpus", "seq", "precision", "tokens-per-step",
                     "log-pattern", "log-groups", "warmup-steps", "packing-length", "doc-length", "doc-lengths",
                     "attention-mask", "padding-fraction" })
                if (parser.isSet(QString::fromLatin1(flag)))
                    throw InputError("--" + std::string(flag) + " applies to --log only (FILE.json states it)");
            const std::string text
                = readWholeFile(QFile::encodeName(files.first()).toStdString(), "a report of training runs (JSON)");
            runs = reportedRunsFromText(text, files.first().toStdString(), presets);
        }
        if (const auto formula = formulaFlag(parser)) // the corrected MFU's formula, over FILE.json's own
            for (ReportedRun& run : runs)
                run.formula = *formula;
        for (const ReportedRun& run : runs) { // names the report or log gave, printed as given
            noteEchoedName(run.label);
            noteEchoedName(run.hardware.name);
            if (run.model)
                noteEchoedName(run.model->name);
        }
        const Diagnosis d = diagnose(runs, presets.hardware());
        if (parser.isSet(QStringLiteral("json")))
            printJson(diagnosisToJson(d));
        else
            printText(QString::fromStdString(diagnosisToText(d)));
        return 0;
    });
}

} // namespace mfu::cli
