// mfu-explorer validate: run the cost model on every published training run of the validation table
// (presets/validation/runs.json, embedded; or --runs FILE) and print predicted vs measured throughput, the error,
// whether the layout fits, and the error per group. --check exits 1 when the out-of-sample mean error exceeds the
// documented bound or a published layout is predicted not to fit.
#include <QCommandLineParser>

#include <QFile>
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/costmodel/validation.h"
#include "core/costmodel/validation_report.h"
#include "core/errors.h"
#include "core/io/read_file.h"

namespace mfu::cli {

int runValidate(const QStringList& args)
{
    const QString cmd = QStringLiteral("validate");
    QCommandLineParser parser;
    addJsonOption(parser);
    parser.addOption(option(QStringLiteral("runs"),
        QStringLiteral("A validation table of your own (format: docs/cost-model.md, Validation)"),
        QStringLiteral("FILE")));
    parser.addOption(option(QStringLiteral("check"),
        QStringLiteral("Exit 1 when an error bound of docs/cost-model.md is exceeded (out-of-sample mean %1%, "
                       "out-of-sample MoE mean %2%, any MoE run %3%, all runs %4%) or a published layout does not fit")
            .arg(100 * kValidationMeanErrorBound)
            .arg(100 * kValidationMoeMeanErrorBound)
            .arg(100 * kValidationMoeMaxErrorBound)
            .arg(100 * kValidationAllRunsMeanErrorBound)));
    if (auto exit = parseArguments(parser, args, cmd))
        return *exit;
    return runSubcommand(cmd, [&] {
        const QString path = parser.isSet(QStringLiteral("runs")) ? parser.value(QStringLiteral("runs"))
                                                                  : QStringLiteral(":/presets/validation/runs.json");
        QByteArray bytes;
        if (parser.isSet(QStringLiteral("runs"))) {
            bytes = QByteArray::fromStdString(
                readWholeFile(QFile::encodeName(path).toStdString(), "a file of validation runs"));
        } else { // the built-in table, a Qt resource
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                throw InputError("cannot read '" + path.toStdString() + "': " + file.errorString().toStdString());
            bytes = file.readAll();
        }
        const std::string name = parser.isSet(QStringLiteral("runs")) ? path.toStdString() : "runs.json";
        std::vector<ValidationRun> runs = validationRunsFromJson(
            std::string_view(bytes.constData(), size_t(bytes.size())), app::presetLibrary(), name);
        // Each run's command names the presets and the built-in table's own models and GPUs, as --model and --gpu do.
        statePredictCommands(runs, app::presetLibrary(), &app::shippedValidationDefinitions());
        const ValidationReport report = runValidation(runs);
        if (parser.isSet(QStringLiteral("json")))
            printJson(validationReportJson(report));
        else
            printText(QString::fromStdString(validationReportText(report)));
        const std::vector<std::string> broken = validationBoundsBroken(report);
        if (parser.isSet(QStringLiteral("check")) && !broken.empty()) {
            for (const std::string& b : broken)
                std::fprintf(stderr, "mfu-explorer validate: %s\n", b.c_str());
            return 1;
        }
        return 0;
    });
}

} // namespace mfu::cli
