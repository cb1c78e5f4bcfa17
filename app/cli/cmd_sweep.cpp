// mfu-explorer sweep --axis seq|gpus|precision|network: the prediction along one axis for the scenario's configuration
// and the planner's best at each point; points that do not fit are marked. Text, --json or --csv.
#include <QCommandLineParser>

#include "app/cli/calibration_flags.h"
#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/scenario_flags.h"
#include "app/validation_store.h"
#include "core/calibration/calibrated_sweep.h"
#include "core/costmodel/sweep.h"
#include "core/errors.h"
#include "core/text.h"

namespace mfu::cli {

int runSweep(const QStringList& args)
{
    const QString cmd = QStringLiteral("sweep");
    QCommandLineParser parser;
    addScenarioOptions(parser);
    addJsonOption(parser);
    parser.addOption(option(QStringLiteral("axis"),
        QStringLiteral("What to sweep: seq (2k-128k), gpus (1-16,384), precision, or network (Gb/s per GPU, 25-3,200)"),
        QStringLiteral("AXIS")));
    parser.addOption(option(QStringLiteral("values"),
        QStringLiteral("Comma-separated points instead of the default grid"), QStringLiteral("LIST")));
    parser.addOption(option(QStringLiteral("csv"), QStringLiteral("Print CSV")));
    addCalibrationOption(parser);
    parser.addOption(option(QStringLiteral("no-planner"),
        QStringLiteral("Only the current configuration (skip the planner's best per point)")));
    if (auto exit = parseArguments(parser, args, cmd))
        return *exit;
    return runSubcommand(cmd, [&] {
        if (!parser.isSet(QStringLiteral("axis")))
            throw InputError("--axis is required: seq, gpus, precision or network");
        const auto axis = sweepAxisFromKey(parser.value(QStringLiteral("axis")).toStdString());
        if (!axis)
            throw InputError("--axis: " + quotedForMessage(parser.value(QStringLiteral("axis")).toStdString())
                + " is not one of seq, gpus, precision, network");
        const Scenario s = scenarioFromFlags(parser);
        std::vector<double> values; // the points; the sweep is the one every surface draws (scenarioSweep)
        if (parser.isSet(QStringLiteral("values"))) {
            const QString flag = QStringLiteral("values");
            // "8, 16": the items of a list may have spaces around them, a number alone may not.
            for (const QString& item : parser.value(flag).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                const QString v = item.trimmed();
                if (*axis == SweepAxis::Precision) {
                    const auto precision = trainingPrecisionFromKey(v.toStdString());
                    if (!precision)
                        throw InputError("--values: " + quotedForMessage(v.toStdString())
                            + " is not a training precision (bf16, fp8, fp4)");
                    values.push_back(sweepValueOf(*precision));
                } else if (*axis == SweepAxis::SeqLen) {
                    values.push_back(double(parseSequenceLengthFlag(v, flag)));
                } else if (*axis == SweepAxis::Network) {
                    values.push_back(statedNetworkFlag(v, flag));
                } else {
                    values.push_back(double(parseGpuCount(v, flag)));
                }
            }
            if (values.empty())
                throw InputError("--values: no points given");
        }
        // With --calibration, each point's own configuration also as the traced run's terms would have it.
        // Another model or GPU is refused as predict refuses it: a column of "-" said nothing of why.
        const auto calibration = calibrationFlagFor(parser, s);
        const SweepResult r
            = scenarioSweep(s, *axis, &app::shippedErrorBands(), values, !parser.isSet(QStringLiteral("no-planner")));
        const auto calibratedAt = [&](const SweepPoint& p) -> nlohmann::json {
            try {
                return calibratedSummaryJson(calibratedAtPoint(s, *axis, p, *calibration));
            } catch (const InputError& e) {
                return { { "invalid", e.what() } };
            }
        };
        if (parser.isSet(QStringLiteral("csv"))) {
            const std::string csv = sweepToCsv(r);
            if (const auto figure = nonFiniteFigure(csv))
                throw InputError(
                    "a result is not a finite number ('" + *figure + "'): an input is beyond any real job");
            writeOut(csv);
            return 0;
        }
        if (parser.isSet(QStringLiteral("json"))) {
            // The error band beside the figures it brackets, with the keys predict uses.
            const auto addBand = [](nlohmann::json& j, const std::optional<ErrorBand>& band) {
                if (band)
                    j.update(errorBandJson(*band));
            };
            nlohmann::json points = nlohmann::json::array();
            for (const auto& p : r.points) {
                nlohmann::json j = { { "x", p.x }, { "precision", std::string(trainingPrecisionKey(p.precision)) } };
                j["current"]
                    = p.currentValid ? predictionJson(p.current) : nlohmann::json { { "invalid", p.currentProblem } };
                addBand(j["current"], p.currentBand);
                if (calibration && p.currentValid)
                    j["current"]["calibrated"] = calibratedAt(p);
                j["best"] = p.best ? plannedConfigJson(*p.best) : nlohmann::json();
                // Why there is no best: the planner's reason, or that it was not run (--no-planner).
                j["best_problem"] = p.best ? nlohmann::json()
                    : r.plannerRan         ? nlohmann::json(p.bestProblem)
                                           : nlohmann::json("not run");
                if (p.best)
                    addBand(j["best"], p.bestBand);
                // A best that is the best of the layouts whose MFU stays within 100%: how many others were left out.
                j["best_left_out"] = p.bestLeftOut.empty() ? nlohmann::json() : nlohmann::json(p.bestLeftOut);
                points.push_back(j);
            }
            printJson(
                { { "axis", std::string(sweepAxisKey(r.axis)) }, { "points", points }, { "evaluated", r.evaluated } });
            return 0;
        }
        // The axis with its unit where it has one: the network's values are Gb/s per GPU, one way.
        const QString axisHeader = QString::fromStdString(std::string(sweepAxisKey(r.axis)))
            + (*axis == SweepAxis::Network ? QStringLiteral(" Gb/s") : QString());
        QString t = QStringLiteral("%1  %2  %3  %4%5\n")
                        .arg(axisHeader, 12)
                        .arg(QStringLiteral("current MFU"), 14)
                        .arg(QStringLiteral("TFLOPS/GPU"), 11)
                        .arg(calibration ? QStringLiteral("%1  ").arg(QStringLiteral("calibrated"), 10) : QString())
                        .arg(QStringLiteral("best MFU (layout)"));
        const auto pointLabel = [&axis](const SweepPoint& p) {
            return *axis == SweepAxis::Precision
                ? QString::fromStdString(std::string(trainingPrecisionLabel(p.precision)))
                : QString::number(p.x, 'g', 10); // whole tokens and GPUs; a network may be 12.5 Gb/s
        };
        for (const auto& p : r.points) {
            const QString x = pointLabel(p);
            QString cur = !p.currentValid ? QStringLiteral("invalid")
                : p.currentShown()        ? QStringLiteral("%1%").arg(100 * p.current.mfu, 0, 'f', 1)
                                          : QStringLiteral("does not fit");
            QString best = p.best ? QStringLiteral("%1% (%2)%3")
                                        .arg(100 * p.best->prediction.mfu, 0, 'f', 1)
                                        .arg(QString::fromStdString(describeConfig(*p.best)),
                                            p.bestLeftOut.empty() ? QString() : QStringLiteral(" *"))
                : r.plannerRan ? QString::fromStdString(p.bestProblem)
                               : QStringLiteral("not run (--no-planner)");
            QString calibrated;
            if (calibration) {
                const nlohmann::json c = p.currentValid ? calibratedAt(p) : nlohmann::json();
                calibrated = QStringLiteral("%1  ").arg(c.contains("mfu")
                        ? QString::fromStdString(formatPercent(c["mfu"].get<double>(), 1))
                        : QStringLiteral("-"),
                    10);
            }
            t += QStringLiteral("%1  %2  %3  %4%5\n")
                     .arg(x, 12)
                     .arg(cur, 14)
                     .arg(p.currentShown() ? QString::number(p.current.tflopsPerGpu, 'f', 1) : QStringLiteral("-"), 11)
                     .arg(calibrated)
                     .arg(best);
        }
        // The points whose best is the best of the rest: which, and how many layouts were left out there.
        for (const auto& p : r.points)
            if (p.best && !p.bestLeftOut.empty())
                t += QStringLiteral("* at %1: %2\n").arg(pointLabel(p), QString::fromStdString(p.bestLeftOut));
        if (*axis == SweepAxis::Network)
            if (const std::string note = networkSweepNote(s); !note.empty())
                t += QString::fromStdString(note) + QLatin1Char('\n');
        printText(t);
        return 0;
    });
}

} // namespace mfu::cli
