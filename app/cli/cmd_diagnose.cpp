// mfu-explorer diagnose FILE.json: check what a run reported and name each mistake with the corrected figure.
#include <QCommandLineParser>
#include <QFile>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/preset_store.h"
#include "core/diagnosis.h"
#include "core/diagnosis_report.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace mfu::cli {

namespace {

nlohmann::json findingJson(const Finding& f, const std::string& run)
{
    nlohmann::json j { { "code", f.code }, { "severity", f.severity }, { "message", f.message },
        { "figures", f.figures } };
    if (!run.empty())
        j["run"] = run;
    return j;
}

nlohmann::json toJson(const Diagnosis& d)
{
    nlohmann::json runs = nlohmann::json::array();
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : d.runs) {
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& f : r.findings) {
            findings.push_back(findingJson(f, {}));
            all.push_back(findingJson(f, r.label));
        }
        runs.push_back({ { "label", r.label }, { "mfu", r.mfu },
            { "mfu_with_stated_flops_per_token",
                r.mfuWithStatedFlops ? nlohmann::json(*r.mfuWithStatedFlops) : nlohmann::json() },
            { "tokens_per_sec_per_gpu", r.tokensPerSecPerGpu }, { "tokens_per_sec", r.tokensPerSecCluster },
            { "achieved_tflops_per_gpu", r.achievedFlopsPerGpu / 1e12 }, { "flops_per_token", r.flopsPerToken },
            { "flops_formula", r.flopsFormula }, { "peak_tflops_per_gpu", r.peakFlopsPerGpu / 1e12 },
            { "throughput_basis", r.throughputBasis }, { "findings", findings } });
    }
    nlohmann::json comparison = nlohmann::json::array();
    for (const auto& f : d.comparison) {
        comparison.push_back(findingJson(f, {}));
        all.push_back(findingJson(f, "comparison"));
    }
    return { { "mfu", d.mfu }, { "findings", all }, { "runs", runs }, { "comparison", comparison } };
}

QString toText(const Diagnosis& d)
{
    QString out;
    auto finding = [&out](const Finding& f) {
        const char* mark = f.severity == "error" ? "[error]  " : f.severity == "warning" ? "[warning]" : "[info]   ";
        out += QStringLiteral("  %1 %2: %3\n")
                   .arg(QLatin1String(mark), QString::fromStdString(f.code), QString::fromStdString(f.message));
    };
    for (const auto& r : d.runs) {
        out += QStringLiteral("Run '%1': corrected MFU %2\n")
                   .arg(QString::fromStdString(r.label), QString::fromStdString(formatPercent(r.mfu)));
        for (const auto& f : r.findings)
            finding(f);
    }
    if (!d.comparison.empty()) {
        out += QStringLiteral("Across runs\n");
        for (const auto& f : d.comparison)
            finding(f);
    }
    return out;
}

} // namespace

int runDiagnose(const QStringList& args)
{
    const QString command = QStringLiteral("diagnose");
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("FILE.json"),
        QStringLiteral("What the run(s) reported; keys documented in docs/cli.md (see examples/)"));
    addJsonOption(parser);
    if (const auto exit = parseArguments(parser, args, command))
        return *exit;
    return runSubcommand(command, [&] {
        const QStringList files = parser.positionalArguments();
        if (files.size() != 1)
            throw InputError("expects exactly one FILE.json");
        QFile file(files.first());
        if (!file.open(QIODevice::ReadOnly))
            throw InputError("cannot read '" + files.first().toStdString() + "': " + file.errorString().toStdString());
        const QByteArray bytes = file.readAll();
        const auto& presets = app::presetLibrary();
        const auto runs = reportedRunsFromText(std::string_view(bytes.constData(), size_t(bytes.size())),
            files.first().toStdString(), presets);
        const Diagnosis d = diagnose(runs, presets.hardware());
        if (parser.isSet(QStringLiteral("json")))
            printJson(toJson(d));
        else
            printText(toText(d));
        return 0;
    });
}

} // namespace mfu::cli
