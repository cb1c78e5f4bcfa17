// mfu-explorer plan: search every valid parallel layout, checkpointing mode and micro-batch for the scenario's
// model and cluster; print the best that fit, best first, with why they win.
#include <QCommandLineParser>

#include "app/cli/calibration_flags.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/scenario_flags.h"
#include "app/validation_store.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"
#include "core/number_format.h"
#include "core/units.h"

namespace mfu::cli {

int runPlan(const QStringList& args)
{
    const QString cmd = QStringLiteral("plan");
    QCommandLineParser parser;
    addScenarioOptions(parser);
    addJsonOption(parser);
    parser.addOption(option(
        QStringLiteral("top"), QStringLiteral("How many configurations to print (default 10)"), QStringLiteral("N")));
    parser.addOption(option(QStringLiteral("max-micro-batch"),
        QStringLiteral("Largest micro-batch searched (default 8)"), QStringLiteral("N")));
    parser.addOption(option(QStringLiteral("strict"),
        QStringLiteral("Rank by predicted throughput alone (default: layouts within the error band of the fastest "
                       "tie, and the simpler one ranks first)")));
    parser.addOption(option(QStringLiteral("allow-tp-across-domains"),
        QStringLiteral("Also search TP groups that leave the NVLink domain")));
    addCalibrationOption(parser);
    if (auto exit = parseArguments(parser, args, cmd))
        return *exit;
    return runSubcommand(cmd, [&] {
        const Scenario s = scenarioFromFlags(parser);
        PlannerOptions o;
        if (parser.isSet(QStringLiteral("top")))
            o.topN = static_cast<int>(std::min<int64_t>(
                1000, parsePositiveInteger(parser.value(QStringLiteral("top")), QStringLiteral("top"))));
        if (parser.isSet(QStringLiteral("max-micro-batch")))
            o.maxMicroBatch = static_cast<int>(std::min<int64_t>(4096,
                parsePositiveInteger(
                    parser.value(QStringLiteral("max-micro-batch")), QStringLiteral("max-micro-batch"))));
        o.tpWithinDomain = !parser.isSet(QStringLiteral("allow-tp-across-domains"));
        if (!parser.isSet(QStringLiteral("strict")))
            o.tieTolerance = plannerTieTolerance(s, app::shippedErrorBands());
        // Read and checked before the search: another model or GPU is refused as predict refuses it.
        const auto calibration = calibrationFlagFor(parser, s);
        const PlanResult r = planConfigurations(s, o);
        // The band's width does not depend on the prediction, but its classes do depend on the layout (a MoE given
        // without EP is the barely validated 'MoE without EP' class; the layouts planned for it mostly have EP): the
        // first layout's band, else the scenario's.
        const ErrorBand band = errorBandFor(
            r.configs.empty() ? s : withConfig(s, r.configs.front()), StepPrediction {}, app::shippedErrorBands());
        // With --calibration each layout is also predicted with the traced run's terms; the ranking stays the
        // validated model's (a calibration that extrapolates must not reorder what it never measured). Each layout
        // calibrated at the batch the planner compared it at: a scenario without a global batch is planned at the batch
        // its own layout runs (PlanResult::globalBatchTokens), and withConfig alone gave each layout one micro-batch
        // per rank (a 0.06 s step beside the planned 0.35 s).
        Scenario atBatch = s;
        if (atBatch.workload.globalBatchTokens <= 0)
            atBatch.workload.globalBatchTokens = r.globalBatchTokens;
        const auto calibratedOf
            = [&](const PlannedConfig& c) { return calibratedSummaryJson(withConfig(atBatch, c), *calibration); };
        if (parser.isSet(QStringLiteral("json"))) {
            nlohmann::json configs = nlohmann::json::array();
            for (const auto& c : r.configs) {
                configs.push_back(plannedConfigJson(c));
                if (calibration)
                    configs.back()["calibrated"] = calibratedOf(c);
            }
            printJson({ { "configs", configs }, { "evaluated", r.evaluated }, { "fitting", r.fitting },
                { "seconds", r.seconds }, { "global_batch_tokens", r.globalBatchTokens }, { "off_batch", r.offBatch },
                { "beyond_physics", r.beyondPhysics },
                { "beyond_physics_note",
                    r.beyondPhysics > 0 ? nlohmann::json(beyondPhysicsLeftOutNote(r)) : nlohmann::json() },
                { "nothing_planned", r.configs.empty() ? nlohmann::json(whyNothingPlanned(r)) : nlohmann::json() },
                { "tie_tolerance", o.tieTolerance }, { "error_band_basis", band.basis },
                { "ranking_rule", plannerRankingRule(o.tieTolerance) },
                { "order_note",
                    planOrderNote(r, o.tieTolerance).empty() ? nlohmann::json()
                                                             : nlohmann::json(planOrderNote(r, o.tieTolerance)) } });
            return 0;
        }
        QString t = QStringLiteral("%1 configurations evaluated in %2 s, %3 fit (global batch %4 tokens)\n")
                        .arg(QString::fromStdString(formatNumber(double(r.evaluated), 0)))
                        .arg(r.seconds, 0, 'f', 3)
                        .arg(QString::fromStdString(formatNumber(double(r.fitting), 0)))
                        .arg(QString::fromStdString(formatNumber(double(r.globalBatchTokens), 0)));
        // The rule in the words every surface uses (planner.h), then where the band comes from.
        t += QString::fromStdString(plannerRankingRule(o.tieTolerance));
        if (o.tieTolerance > 0)
            t += QStringLiteral(" Error band%1 from %2; --strict ranks by throughput alone.")
                     .arg(r.configs.empty() ? QString() : QStringLiteral(" of the first layout"),
                         QString::fromStdString(band.basis));
        t += QLatin1Char('\n');
        if (const std::string note = planOrderNote(r, o.tieTolerance); !note.empty())
            t += QString::fromStdString(note) + QStringLiteral(".\n");
        if (!r.configs.empty())
            if (const std::string note = beyondPhysicsLeftOutNote(r); !note.empty())
                t += QString::fromStdString(note) + QStringLiteral(".\n");
        if (r.configs.empty()) {
            t += QString::fromStdString(whyNothingPlanned(r)) + QStringLiteral(".\n");
        }
        int rank = 1;
        for (const auto& c : r.configs) {
            t += QStringLiteral("%1. MFU %2%  %3 tokens/s  %4  %5\n   %6\n")
                     .arg(rank++)
                     .arg(100 * c.prediction.mfu, 0, 'f', 1)
                     .arg(QString::fromStdString(formatNumber(c.prediction.tokensPerSec, 0)))
                     .arg(QString::fromStdString(memoryUseText(c.prediction)))
                     .arg(QString::fromStdString(describeConfig(c)), QString::fromStdString(c.reason));
            if (calibration) {
                const nlohmann::json k = calibratedOf(c);
                t += k.contains("mfu")
                    ? QStringLiteral("   calibrated: MFU %1 (likely %2-%3), %4 of the step extrapolated\n")
                          .arg(QString::fromStdString(formatPercent(k["mfu"].get<double>(), 1)))
                          .arg(QString::fromStdString(formatPercent(k["mfu_low"].get<double>(), 1)))
                          .arg(QString::fromStdString(formatPercent(k["mfu_high"].get<double>(), 1)))
                          .arg(QString::fromStdString(formatPercent(k["shares"]["extrapolated"].get<double>(), 0)))
                    : QStringLiteral("   calibrated: %1\n")
                          .arg(QString::fromStdString(k["invalid"].get<std::string>()));
            }
        }
        printText(t);
        return 0;
    });
}

} // namespace mfu::cli
