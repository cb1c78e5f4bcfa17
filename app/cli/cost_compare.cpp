#include "app/cli/cost_compare.h"

#include <QLocale>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "core/presets/presets.h"
#include "core/text.h"

namespace mfu::cli {

namespace {

QString number(double v, int decimals = 0)
{
    return QLocale(QLocale::English).toString(v, 'f', decimals);
}

std::vector<HardwareSpec> comparedDevices(const QCommandLineParser& parser)
{
    const PresetLibrary& presets = app::presetLibrary();
    if (parser.isSet(qs("compare-all")))
        return presets.hardware();
    std::vector<HardwareSpec> out;
    for (const QString& id : parser.value(qs("compare")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const HardwareSpec* h = presets.findHardware(id.trimmed().toStdString());
        if (!h)
            throw InputError("--compare: unknown hardware preset " + quotedForMessage(id.trimmed().toStdString())
                + " (see 'mfu-explorer presets')");
        out.push_back(*h);
    }
    if (out.empty())
        throw InputError("--compare: give GPU preset ids separated by commas, e.g. h100-sxm,b200");
    return out;
}

} // namespace

void addCompareOptions(QCommandLineParser& parser)
{
    parser.addOption(option(qs("compare"),
        qs("Cost the same job (its tokens) on these GPU presets, each at the MFU of the planner's best "
           "configuration on --gpus of it (needs --model)"),
        qs("ID,ID,...")));
    parser.addOption(option(qs("compare-all"), qs("Like --compare, over every GPU preset")));
}

std::optional<CostComparison> costComparison(
    const QCommandLineParser& parser, const HardwareSpec& hardware, int gpus, double price, const JobCost& job)
{
    if (!parser.isSet(qs("compare")) && !parser.isSet(qs("compare-all")))
        return std::nullopt;
    if (parser.isSet(qs("compare")) && parser.isSet(qs("compare-all")))
        throw InputError("give either --compare or --compare-all, not both");
    const auto model = resolveOptionalModel(parser);
    if (!model || model->isBare())
        throw InputError("--compare predicts each GPU's MFU with the cost model: it needs a model with an "
                         "architecture (--model ID|config.json), not --params or --flops-per-token");
    if (!job.tokens || !job.productiveFlops)
        throw InputError("--compare costs the job's tokens on each GPU: give --tokens, --steps, or --days with "
                         "--baseline-mfu");
    Scenario s;
    s.model = *model;
    s.cluster.hardware = hardware;
    s.costModel = resolvedCostModel(hardware.id);
    s.cluster.gpuCount = gpus;
    s.pricePerGpuHourUsd = price;
    s.workload.seqLen = resolveSeqLen(parser, 8192);
    s.mfuFormula = resolveFormula(parser, *model);
    if (parser.isSet(qs("tokens-per-step")))
        s.workload.globalBatchTokens
            = static_cast<int64_t>(parsePositive(parser.value(qs("tokens-per-step")), qs("tokens-per-step")));

    CostComparison out;
    out.planned = plannedHardwareOptions(s, comparedDevices(parser), &app::presetLibrary(), &app::shippedErrorBands());
    if (out.planned.options.empty())
        throw InputError("--compare: the planner finds no layout on any GPU compared at " + std::to_string(gpus)
            + " GPUs (" + out.planned.leftOut.front().hardwareId + " " + out.planned.leftOut.front().reason + ")");
    out.comparison = compareHardware(*job.tokens, *job.productiveFlops / *job.tokens, out.planned.options);
    return out;
}

nlohmann::json comparisonJson(const CostComparison& c)
{
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < c.comparison.rows.size(); ++i) {
        const HardwareComparisonRow& r = c.comparison.rows[i];
        rows.push_back(
            { { "gpu", r.hardwareId }, { "gpu_name", r.hardwareName }, { "gpus", r.gpuCount }, { "mfu", r.mfu },
                { "configuration", c.planned.configurations[i] }, { "price_per_gpu_hour_usd", r.pricePerGpuHourUsd },
                { "gpu_hours", r.cost.gpuHours }, { "wall_clock_days", r.cost.wallClockDays() },
                { "total_cost_usd", r.cost.costUsd }, { "speedup_vs_first", r.speedupVsFirst },
                { "peak_speedup_vs_first", r.peakSpeedupVsFirst }, { "cost_ratio_vs_first", r.costRatioVsFirst } });
    }
    nlohmann::json leftOut = nlohmann::json::array();
    for (const auto& l : c.planned.leftOut)
        leftOut.push_back({ { "gpu", l.hardwareId }, { "reason", l.reason } });
    return { { "hardware_comparison", rows },
        { "hardware_cheapest", c.comparison.rows[c.comparison.cheapest].hardwareId },
        { "hardware_fastest", c.comparison.rows[c.comparison.fastest].hardwareId }, { "hardware_left_out", leftOut } };
}

QString comparisonText(const CostComparison& c)
{
    QString t = QStringLiteral("Same job on other GPUs (MFU of the planner's best configuration on each)\n");
    t += QStringLiteral("  %1 %2 %3 %4 %5  %6\n")
             .arg(QStringLiteral("GPU"), -22)
             .arg(QStringLiteral("MFU"), 7)
             .arg(QStringLiteral("GPU-hours"), 12)
             .arg(QStringLiteral("days"), 8)
             .arg(QStringLiteral("cost"), 14)
             .arg(QStringLiteral("configuration"));
    for (size_t i = 0; i < c.comparison.rows.size(); ++i) {
        const HardwareComparisonRow& r = c.comparison.rows[i];
        QString mark;
        if (i == c.comparison.cheapest)
            mark += QStringLiteral(" [cheapest]");
        if (i == c.comparison.fastest)
            mark += QStringLiteral(" [fastest]");
        t += QStringLiteral("  %1 %2 %3 %4 %5  %6%7\n")
                 .arg(QString::fromStdString(r.hardwareId), -22)
                 .arg(QString::fromStdString(formatPercent(r.mfu)), 7)
                 .arg(number(r.cost.gpuHours), 12)
                 .arg(number(r.cost.wallClockDays(), 1), 8)
                 .arg(QLatin1Char('$') + number(r.cost.costUsd), 14)
                 .arg(QString::fromStdString(c.planned.configurations[i]), mark);
    }
    for (const auto& l : c.planned.leftOut)
        t += QStringLiteral("  left out: %1 (%2)\n")
                 .arg(QString::fromStdString(l.hardwareId), QString::fromStdString(l.reason));
    return t;
}

} // namespace mfu::cli
