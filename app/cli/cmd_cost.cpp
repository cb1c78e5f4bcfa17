// `mfu-explorer cost`: what a training job costs and what an MFU uplift is worth (core/money). FIXED contract:
//   cost --gpu ID --gpus N --days D --price-per-gpu-hour P --baseline-mfu A --target-mfu B --json
// prints at least gpu_hours, total_cost_usd, gpu_equivalents_recovered, recovered_value_usd, time_saved_fraction.
// The job is a reservation (--days), a token budget (--tokens with --model/--params) or --steps x --tokens-per-step.
// MFU values: a trailing '%' or a value above 1 is a percentage (40, 40%), otherwise a fraction (0.4); so 1 means
// 100% and 1% must be written "1%".
// --compare ID,ID,... / --compare-all add the same job on other GPUs (app/cli/cost_compare.h): "hardware_comparison".
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <optional>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/cli/commands.h"
#include "app/cli/cost_compare.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/money/savings.h"
#include "core/number_format.h"
#include "core/units.h"

namespace mfu::cli {

namespace {

std::optional<double> optionalMfu(const QCommandLineParser& parser, const char* flag)
{
    if (!parser.isSet(qs(flag)))
        return std::nullopt;
    return parseMfuFlag(parser.value(qs(flag)), qs(flag));
}

// The job stated as work needs FLOP/token: from --flops-per-token, or the model at --seq under --formula.
struct Work {
    double tokens = 0;
    double flopsPerToken = 0;
    nlohmann::json description;
};

std::optional<double> jobFlopsPerToken(const QCommandLineParser& parser, nlohmann::json& description)
{
    if (parser.isSet(qs("flops-per-token"))) {
        if (parser.isSet(qs("model")) || parser.isSet(qs("params")))
            throw InputError("give either --flops-per-token or a model (--model/--params), not both");
        return parsePositive(parser.value(qs("flops-per-token")), qs("flops-per-token"));
    }
    const auto model = resolveOptionalModel(parser);
    if (!model)
        return std::nullopt;
    const int64_t seq = resolveSeqLen(parser, 8192);
    const FlopFormula formula = resolveFormula(parser, *model);
    const double fpt = resolveFlopsPerToken(*model, seq, formula);
    description["model"] = model->id;
    description["seq"] = seq;
    description["formula"] = std::string(flopFormulaKey(formula));
    return fpt;
}

JobCost costJob(
    const QCommandLineParser& parser, const ClusterRate& rate, std::optional<double> mfu, nlohmann::json& job)
{
    const bool days = parser.isSet(qs("days"));
    const bool tokens = parser.isSet(qs("tokens"));
    const bool steps = parser.isSet(qs("steps"));
    if (int(days) + int(tokens) + int(steps) != 1)
        throw InputError("give the job as exactly one of --days D, --tokens T, or --steps N with --tokens-per-step");
    const auto flopsPerToken = jobFlopsPerToken(parser, job);
    if (flopsPerToken)
        job["flops_per_token"] = *flopsPerToken;
    if (days) {
        const double d = parsePositive(parser.value(qs("days")), qs("days"));
        job["kind"] = "reservation";
        job["days"] = d;
        if (flopsPerToken && mfu)
            return costForReservation(d, rate, *flopsPerToken, *mfu);
        return costForReservation(d, rate);
    }
    if (!flopsPerToken)
        throw InputError("a job given as tokens or steps needs --model ID|config.json, --params N or "
                         "--flops-per-token F");
    if (!mfu)
        throw InputError("a job given as tokens or steps needs --baseline-mfu (the MFU it runs at)");
    if (tokens) {
        job["kind"] = "tokens";
        return costForTokens(parsePositive(parser.value(qs("tokens")), qs("tokens")), *flopsPerToken, *mfu, rate);
    }
    if (!parser.isSet(qs("tokens-per-step")))
        throw InputError("--steps needs --tokens-per-step");
    job["kind"] = "steps";
    job["steps"] = parsePositiveInteger(parser.value(qs("steps")), qs("steps"));
    job["tokens_per_step"] = parsePositive(parser.value(qs("tokens-per-step")), qs("tokens-per-step"));
    return costForSteps(job["steps"].get<int64_t>(), job["tokens_per_step"].get<double>(), *flopsPerToken, *mfu, rate);
}

nlohmann::json optionalJson(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json costJson(const JobCost& c)
{
    return { { "gpu_hours", c.gpuHours }, { "wall_clock_days", c.wallClockDays() }, { "cost_usd", c.costUsd },
        { "energy_kwh", optionalJson(c.energyKwh) }, { "tokens", optionalJson(c.tokens) },
        { "mfu", optionalJson(c.mfu) } };
}

QString number(double v, int decimals = 0)
{
    return QLocale(QLocale::English).toString(v, 'f', decimals);
}

// An amount (GPU-hours, dollars, kWh) in whole units, or to three significant digits below one: a job of minutes
// costs cents, not "$0".
QString amount(double v)
{
    const double magnitude = std::fabs(v);
    if (!(magnitude > 0) || magnitude >= 1)
        return number(v);
    return number(v, std::min(12, 2 - static_cast<int>(std::floor(std::log10(magnitude)))));
}

// A token count with separators and in words: "15,000,000,000,000 (15.0T)".
QString tokenCount(double tokens)
{
    return QString::fromStdString(formatNumber(tokens, 0) + " (" + formatParameters(tokens) + ")");
}
QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction)); // the one percent format (core/number_format.h)
}

QString costText(const HardwareSpec& hw, const ClusterRate& rate, const JobCost& c)
{
    QString t = QStringLiteral("Job on %1 x %2 at $%3 per GPU-hour\n")
                    .arg(rate.gpuCount)
                    .arg(QString::fromStdString(hw.displayName()))
                    .arg(number(rate.pricePerGpuHourUsd, 2));
    t += QStringLiteral("  GPU-hours        %1\n").arg(amount(c.gpuHours));
    t += QStringLiteral("  Wall-clock       %1 days\n")
             .arg(c.wallClockDays() >= 0.1 ? number(c.wallClockDays(), 1) : amount(c.wallClockDays()));
    t += QStringLiteral("  Cost             $%1\n").arg(amount(c.costUsd));
    if (c.energyKwh)
        t += QStringLiteral("  Energy           %1 kWh (GPU boards only, before PUE)\n").arg(amount(*c.energyKwh));
    if (c.tokens)
        t += QStringLiteral("  Tokens           %1 at %2 MFU\n").arg(tokenCount(*c.tokens), percent(*c.mfu));
    return t;
}

QString savingsText(const MfuSavings& s)
{
    const auto& b = s.fixedBudget;
    const auto& w = s.fixedWork;
    QString t = QStringLiteral("MFU %1 -> %2\n").arg(percent(s.uplift.baselineMfu), percent(s.uplift.targetMfu));
    // A target below the baseline is a loss: said with positive amounts, as the Cost panel says it, not as negative
    // savings ("-50% sooner", "$-691,200 saved").
    const bool loss = s.uplift.targetMfu < s.uplift.baselineMfu;
    t += QStringLiteral("  Fixed budget (same GPU-hours): productive GPU-equivalents %1 -> %2, %3 %4, worth $%5; %6x "
                        "the work\n")
             .arg(QString::fromStdString(formatGpuEquivalents(b.productiveGpuEquivalentsBaseline)),
                 QString::fromStdString(formatGpuEquivalents(b.productiveGpuEquivalentsTarget)),
                 QString::fromStdString(formatGpuEquivalents(std::abs(b.gpuEquivalentsRecovered))),
                 loss ? QStringLiteral("lost") : QStringLiteral("recovered"), number(std::abs(b.recoveredValueUsd)),
                 number(b.workMultiplier, 2));
    t += QStringLiteral("  Fixed work (same tokens): %1 %2 (%3 days instead of %4), %5 GPU-hours and $%6 %7\n")
             .arg(percent(std::abs(w.timeSavedFraction)), loss ? QStringLiteral("longer") : QStringLiteral("sooner"),
                 number(w.target.wallClockDays(), 1), number(w.baseline.wallClockDays(), 1),
                 number(std::abs(w.gpuHoursSaved)), number(std::abs(w.costSavedUsd)),
                 loss ? QStringLiteral("lost") : QStringLiteral("saved"));
    return t;
}

} // namespace

int runCost(const QStringList& args)
{
    const QString command = QStringLiteral("cost");
    QCommandLineParser parser;
    addClusterOptions(parser);
    addModelOptions(parser);
    parser.addOption(option(qs("seq"), qs("Sequence length for the model's FLOP/token (default 8192)"), qs("S")));
    addFlopFormulaOption(parser);
    parser.addOption(option(qs("flops-per-token"), qs("Training FLOP per token, instead of a model"), qs("F")));
    parser.addOption(option(qs("days"), qs("Job as a reservation of --gpus GPUs for D days"), qs("D")));
    parser.addOption(option(qs("tokens"), qs("Job as a token budget, e.g. 15T (needs a model)"), qs("T")));
    parser.addOption(
        option(qs("steps"), qs("Job as optimizer steps (with --tokens-per-step; needs a model)"), qs("N")));
    parser.addOption(option(qs("tokens-per-step"), qs("Global tokens per optimizer step"), qs("N")));
    parser.addOption(
        { qs("price-per-gpu-hour"), qs("Dollars per GPU-hour (default: the preset's typical price)"), qs("P") });
    parser.addOption(
        { qs("baseline-mfu"), qs("MFU the job runs at: 0.4, 40 or 40% (a value <= 1 is a fraction)"), qs("A") });
    parser.addOption(option(qs("target-mfu"), qs("MFU after tuning, same forms: prints the savings"), qs("B")));
    addCompareOptions(parser);
    addJsonOption(parser);
    if (auto status = parseArguments(parser, args, command))
        return *status;

    return runSubcommand(command, [&] {
        const HardwareSpec hw = resolveHardware(parser);
        const int gpus = resolveGpuCount(parser);
        const double price = parser.isSet(qs("price-per-gpu-hour"))
            ? parsePositive(parser.value(qs("price-per-gpu-hour")), qs("price-per-gpu-hour"))
            : hw.pricePerGpuHourUsd;
        if (!(price > 0))
            throw InputError("--price-per-gpu-hour is required: preset '" + hw.id + "' has no typical price");
        const ClusterRate rate = clusterRate(hw, gpus, price);
        const auto baseline = optionalMfu(parser, "baseline-mfu");
        const auto target = optionalMfu(parser, "target-mfu");
        if (target && !baseline)
            throw InputError("--target-mfu needs --baseline-mfu");
        if (target)
            refuseMixedMfuUnits(
                parser.value(qs("baseline-mfu")), qs("baseline-mfu"), parser.value(qs("target-mfu")), qs("target-mfu"));

        nlohmann::json job;
        const JobCost cost = costJob(parser, rate, baseline, job);
        std::optional<MfuSavings> savings;
        if (target)
            savings = mfuSavings(cost, { *baseline, *target }, rate);
        const auto comparison = costComparison(parser, hw, gpus, price, cost);

        if (!parser.isSet(qs("json"))) {
            printText(costText(hw, rate, cost) + (savings ? savingsText(*savings) : QString())
                + (comparison ? comparisonText(*comparison) : QString()));
            return 0;
        }
        nlohmann::json out = { { "gpu", hw.id }, { "gpu_name", hw.name }, { "gpus", gpus },
            { "price_per_gpu_hour_usd", price }, { "power_watts", optionalJson(hw.powerWatts) }, { "job", job },
            { "baseline_mfu", optionalJson(baseline) }, { "target_mfu", optionalJson(target) },
            { "gpu_hours", cost.gpuHours }, { "wall_clock_days", cost.wallClockDays() },
            { "total_cost_usd", cost.costUsd }, { "energy_kwh", optionalJson(cost.energyKwh) },
            { "tokens", optionalJson(cost.tokens) } };
        if (savings) {
            const auto& b = savings->fixedBudget;
            const auto& w = savings->fixedWork;
            out["gpu_equivalents_baseline"] = b.productiveGpuEquivalentsBaseline;
            out["gpu_equivalents_target"] = b.productiveGpuEquivalentsTarget;
            out["gpu_equivalents_recovered"] = b.gpuEquivalentsRecovered;
            out["recovered_value_usd"] = b.recoveredValueUsd;
            out["time_saved_fraction"] = w.timeSavedFraction;
            out["fixed_work"] = { { "baseline", costJson(w.baseline) }, { "target", costJson(w.target) },
                { "gpu_hours_saved", w.gpuHoursSaved }, { "days_saved", w.wallClockDaysSaved() },
                { "cost_saved_usd", w.costSavedUsd }, { "energy_saved_kwh", optionalJson(w.energySavedKwh) },
                { "time_saved_fraction", w.timeSavedFraction } };
            out["fixed_budget"] = { { "gpu_hours", b.gpuHours }, { "work_multiplier", b.workMultiplier },
                { "baseline_tokens", optionalJson(b.baselineTokens) },
                { "target_tokens", optionalJson(b.targetTokens) }, { "extra_tokens", optionalJson(b.extraTokens) } };
        }
        if (comparison)
            out.update(comparisonJson(*comparison));
        printJson(out);
        return 0;
    });
}

} // namespace mfu::cli
