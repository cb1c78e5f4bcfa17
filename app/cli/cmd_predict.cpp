// mfu-explorer predict: the cost model's prediction for one scenario - step time by component, tokens/s, TFLOPS,
// MFU and HFU, memory per GPU and whether it fits, and the bottleneck in one sentence.
#include <QCommandLineParser>

#include "app/cli/calibration_flags.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/scenario_flags.h"
#include "app/validation_store.h"
#include "core/costmodel/calibration.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/levers.h"
#include "core/number_format.h"
#include "core/scenario/ignored_settings.h"
#include "core/scenario/scenario_facts.h"
#include "core/units.h"

namespace mfu::cli {

namespace {
// Percentages in the one format of every surface (core/number_format.h).
QString percentLine(const char* label, double fraction)
{
    return QStringLiteral("  %1 %2\n")
        .arg(QString::fromLatin1(label), -26)
        .arg(QString::fromStdString(formatPercent(fraction)));
}

QString line(const char* label, double value, const char* unit, int precision = 2)
{
    // Grouped digits (core/number_format.h), and no trailing space after a figure without a unit.
    const QString figure = QString::fromStdString(formatNumber(value, precision));
    return QStringLiteral("  %1 %2\n")
        .arg(QString::fromLatin1(label), -26)
        .arg(*unit ? figure + QLatin1Char(' ') + QString::fromLatin1(unit) : figure);
}

nlohmann::json outcomeJson(const LeverOutcome& o)
{
    const auto orNull = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    return { { "mfu", orNull(o.mfu) }, { "hfu", orNull(o.hfu) },
        { "useful_tokens_per_sec_per_gpu", o.usefulTokensPerSecPerGpu }, { "step_time_s", o.stepTimeSeconds },
        { "peak_memory_bytes", o.peakMemoryBytes }, { "fits", o.fits } };
}

nlohmann::json leversJson(const std::vector<LeverEffect>& levers)
{
    nlohmann::json out = nlohmann::json::array();
    for (const LeverEffect& e : levers) {
        nlohmann::json lever = { { "lever", std::string(leverKey(e.lever)) }, { "name", leverName(e) },
            { "in_scenario", e.inScenario }, { "with", outcomeJson(e.with) }, { "without", outcomeJson(e.without) } };
        if (e.degree > 0)
            lever["degree"] = e.degree; // the EP expert parallelism sets when pulled
        out.push_back(std::move(lever));
    }
    return out;
}

// One line per lever: what pulling it buys, in useful tokens/s, MFU and memory.
QString leversText(const std::vector<LeverEffect>& levers)
{
    if (levers.empty())
        return {};
    QString t = QStringLiteral("  levers (with vs without; useful tokens/s per GPU, MFU, peak memory):\n");
    for (const LeverEffect& e : levers) {
        const auto gib = [](double bytes) { return bytes / kGiB; };
        t += QStringLiteral("    %1 %2 %3 vs %4 tokens/s, MFU %5 vs %6, %7 vs %8 GiB%9\n")
                 .arg(QString::fromStdString(leverName(e)), -28)
                 .arg(e.inScenario ? QStringLiteral("(on) ") : QStringLiteral("(off)"))
                 .arg(QString::fromStdString(formatNumber(e.with.usefulTokensPerSecPerGpu)))
                 .arg(QString::fromStdString(formatNumber(e.without.usefulTokensPerSecPerGpu)))
                 .arg(QString::fromStdString(e.with.mfu ? formatPercent(*e.with.mfu) : "- (above the peak)"))
                 .arg(QString::fromStdString(e.without.mfu ? formatPercent(*e.without.mfu) : "- (above the peak)"))
                 .arg(gib(e.with.peakMemoryBytes), 0, 'f', 1)
                 .arg(gib(e.without.peakMemoryBytes), 0, 'f', 1)
                 .arg(e.with.fits == e.without.fits ? QString()
                         : e.with.fits              ? QStringLiteral(" (fits only with it)")
                                                    : QStringLiteral(" (fits only without it)"));
    }
    return t;
}

QString text(const Scenario& s, const StepPrediction& p, const ErrorBand& band)
{
    // A network stated for the cluster (--scale-out-gbps) is named beside the GPU: the preset's is not the run's. With
    // the decimals it has ("12.5 Gb/s"), never rounded to a whole figure.
    const QString network = scaleOutStated(s.cluster.hardware)
        ? QStringLiteral(" (%1 network per GPU)")
              .arg(QString::fromStdString(formatGbitPerSec(scaleOutGbitPerSec(s.cluster.hardware))))
        : QString();
    QString t = QStringLiteral("%1 on %2 x %3%4, %5 tokens, %6\n")
                    .arg(QString::fromStdString(s.model.displayName()))
                    .arg(s.cluster.gpuCount)
                    .arg(QString::fromStdString(s.cluster.hardware.id), network)
                    .arg(s.workload.seqLen)
                    .arg(QString::fromStdString(std::string(trainingPrecisionLabel(s.precision))));
    // Beside an FP8 or FP4 peak the headline says its own: against the BF16 peak a BF16+FP4 run can pass 100%.
    const bool lowPrecisionPeak = p.mfuVsFp8Peak || p.mfuVsFp4Peak;
    t += percentLine(lowPrecisionPeak ? "MFU vs BF16 peak" : "MFU", p.mfu);
    if (p.mfuVsFp8Peak)
        t += percentLine("MFU vs FP8 peak", *p.mfuVsFp8Peak);
    if (p.mfuVsFp4Peak)
        t += percentLine("MFU vs FP4 peak", *p.mfuVsFp4Peak);
    t += percentLine("HFU", p.hfu);
    t += QStringLiteral("  %1 %2-%3% MFU, %4-%5 tokens/s per GPU (%6)\n")
             .arg(QStringLiteral("likely range"), -26)
             .arg(100 * band.mfuLow, 0, 'f', 1)
             .arg(100 * band.mfuHigh, 0, 'f', 1)
             .arg(QString::fromStdString(formatNumber(band.tokensPerSecPerGpuLow)))
             .arg(QString::fromStdString(formatNumber(band.tokensPerSecPerGpuHigh)))
             .arg(QString::fromStdString("error band from " + band.basis));
    // Both scopes, labelled: the likely range above is per GPU, and a bare "tokens/s" beside it read as one too.
    t += line("tokens/s per GPU", p.tokensPerSecPerGpu, "", 0);
    t += line("tokens/s, whole cluster", p.tokensPerSec, "", 0);
    t += line("TFLOPS per GPU", p.tflopsPerGpu, "", 1);
    t += line("step time", p.stepTimeSeconds, "s", 3);
    if (p.pacingRank)
        t += QStringLiteral("  %1 %2\n")
                 .arg(QStringLiteral("pace set by"), -26)
                 .arg(QString::fromStdString(pacingRankText(*p.pacingRank, s.parallelism.pp)));
    t += QStringLiteral("  time per step:\n");
    t += line("  matmul", p.time.matmul, "s", 3);
    t += line("  attention", p.time.attention, "s", 3);
    t += line("  memory-bound", p.time.memoryBound, "s", 3);
    t += line("  recompute", p.time.recompute, "s", 3);
    for (CommKind k : kAllCommKinds)
        if (p.time.comm(k) > 0)
            t += line(("  exposed " + std::string(commKindKey(k))).c_str(), p.time.comm(k), "s", 3);
    t += line("  pipeline bubble", p.time.pipelineBubble, "s", 3);
    t += line("  overhead", p.time.overhead, "s", 3);
    t += line("peak memory per GPU", p.memory.total() / kGiB, "GiB", 1);
    t += line("capacity", p.memoryCapacityBytes / kGiB, p.fits ? "GiB (fits)" : "GiB (DOES NOT FIT)", 1);
    t += QStringLiteral("  %1\n").arg(QString::fromStdString(bottleneckSentence(p)));
    t += leversText(leverEffects(s));
    return t;
}
} // namespace

int runPredict(const QStringList& args)
{
    const QString cmd = QStringLiteral("predict");
    QCommandLineParser parser;
    addScenarioOptions(parser);
    addJsonOption(parser);
    parser.addOption(option(QStringLiteral("calibrate-mfu"),
        QStringLiteral("Fit the efficiency constants so the model reproduces this measured MFU: 0.4, 40 or 40% (a "
                       "value <= 1 is a fraction)"),
        QStringLiteral("MFU")));
    addCalibrationOption(parser);
    if (auto exit = parseArguments(parser, args, cmd))
        return *exit;
    return runSubcommand(cmd, [&] {
        Scenario s = scenarioFromFlags(parser);
        nlohmann::json calibration;
        if (parser.isSet(QStringLiteral("calibrate-mfu"))) {
            const double measured
                = parseMfuFlag(parser.value(QStringLiteral("calibrate-mfu")), QStringLiteral("calibrate-mfu"));
            const CalibrationResult r = calibrateToMfu(s, measured);
            s.costModel = r.constants;
            calibration = { { "measured_mfu", measured }, { "scale", r.scale }, { "uncalibrated_mfu", r.before.mfu } };
        }
        const StepPrediction p = evaluate(s);
        const ErrorBand band = errorBandFor(s, p, app::shippedErrorBands());
        const auto traceCalibration = calibrationFlag(parser);
        const QString calibrationFile = parser.value(QStringLiteral("calibration"));
        const auto calibrated = traceCalibration ? std::optional(calibratedFor(s, *traceCalibration, p)) : std::nullopt;
        if (parser.isSet(QStringLiteral("json"))) {
            nlohmann::json out = predictionJson(p);
            out.update(errorBandJson(band));
            out["levers"] = leversJson(leverEffects(s));
            if (!calibration.is_null())
                out["calibration"] = calibration;
            const auto rounding = globalBatchRoundingNote(s);
            out["global_batch_note"] = rounding ? nlohmann::json(*rounding) : nlohmann::json();
            if (calibrated)
                out["calibrated"] = calibratedJson(*calibrated, calibrationFile);
            out["ignored_settings"] = nlohmann::json::array();
            for (const IgnoredSetting& i : ignoredSettings(s))
                out["ignored_settings"].push_back({ { "flag", "--" + std::string(i.flag) },
                    { "setting", std::string(i.key) }, { "why", std::string(i.why) } });
            printJson(out);
        } else {
            QString t = text(s, p, band);
            if (const auto rounding = globalBatchRoundingNote(s))
                t += QStringLiteral("  note: %1\n").arg(QString::fromStdString(*rounding));
            // Stated but without effect here: said, so the same figures are not read as the setting's outcome.
            if (const std::string ignored = ignoredSettingsText(ignoredSettings(s)); !ignored.empty())
                t += QStringLiteral("  ignored: %1\n").arg(QString::fromStdString(ignored));
            if (!calibration.is_null())
                t += QStringLiteral("  calibrated: efficiencies x%1 (uncalibrated MFU %2%)\n")
                         .arg(calibration["scale"].get<double>(), 0, 'f', 3)
                         .arg(100 * calibration["uncalibrated_mfu"].get<double>(), 0, 'f', 1);
            if (calibrated)
                t += calibratedText(*calibrated, calibrationFile);
            printText(t);
        }
        return 0;
    });
}

} // namespace mfu::cli
