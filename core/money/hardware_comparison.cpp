#include "core/money/hardware_comparison.h"

#include "core/errors.h"

namespace mfu {

namespace {

HardwareComparisonRow costOption(
    double tokens, double flopsPerToken, const HardwareOption& option, const MfuPredictor& predictor)
{
    HardwareComparisonRow row;
    row.hardwareId = option.hardware.id;
    row.hardwareName = option.hardware.name;
    row.gpuCount = option.gpuCount;
    if (option.mfu) {
        row.mfu = *option.mfu;
    } else if (predictor) {
        row.mfu = predictor(option.hardware, option.gpuCount);
        row.mfuPredicted = true;
    } else {
        throw InputError(option.hardware.id + ": no MFU given and no predictor to estimate one");
    }
    row.pricePerGpuHourUsd = option.pricePerGpuHourUsd.value_or(option.hardware.pricePerGpuHourUsd);
    try {
        requireMfu(row.mfu, row.mfuPredicted ? "predicted MFU" : "MFU");
        const ClusterRate rate = clusterRate(option.hardware, option.gpuCount, row.pricePerGpuHourUsd);
        row.cost = costForTokens(tokens, flopsPerToken, row.mfu, rate);
    } catch (const InputError& e) {
        throw InputError(option.hardware.id + ": " + e.what());
    }
    return row;
}

double clusterPeak(const HardwareOption& option)
{
    return option.gpuCount * *option.hardware.mfuPeak();
}

} // namespace

HardwareComparison compareHardware(
    double tokens, double flopsPerToken, const std::vector<HardwareOption>& options, const MfuPredictor& predictor)
{
    if (options.empty())
        throw InputError("hardware comparison needs at least one option");
    requirePositive(tokens, "token budget");
    requirePositive(flopsPerToken, "FLOP per token");

    HardwareComparison result;
    for (const auto& option : options)
        result.rows.push_back(costOption(tokens, flopsPerToken, option, predictor));

    const auto& first = result.rows.front();
    const double firstPeak = clusterPeak(options.front());
    for (size_t i = 0; i < result.rows.size(); ++i) {
        auto& row = result.rows[i];
        row.speedupVsFirst = first.cost.wallClockSeconds / row.cost.wallClockSeconds;
        row.peakSpeedupVsFirst = clusterPeak(options[i]) / firstPeak;
        row.costRatioVsFirst = row.cost.costUsd / first.cost.costUsd;

        const auto& cheapest = result.rows[result.cheapest];
        if (row.cost.costUsd < cheapest.cost.costUsd
            || (row.cost.costUsd == cheapest.cost.costUsd
                && row.cost.wallClockSeconds < cheapest.cost.wallClockSeconds))
            result.cheapest = i;
        const auto& fastest = result.rows[result.fastest];
        if (row.cost.wallClockSeconds < fastest.cost.wallClockSeconds
            || (row.cost.wallClockSeconds == fastest.cost.wallClockSeconds && row.cost.costUsd < fastest.cost.costUsd))
            result.fastest = i;
    }
    return result;
}

} // namespace mfu
