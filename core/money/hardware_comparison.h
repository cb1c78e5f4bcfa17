#pragma once
// Which GPU trains a given job (tokens x FLOP/token) for the least money or in the least time, each at its own
// achievable MFU: given (measured) or predicted by a caller-supplied function, so the cost model plugs in without
// money depending on it. Speed-ups are stated against the first option next to the datasheet (peak) speed-up, the
// VECTOR Labs article's point: an upgrade on a stack stuck at a low MFU delivers only speedup/peakSpeedup of its
// promise.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/hardware_spec.h"
#include "core/money/job_cost.h"

namespace mfu {

struct HardwareOption {
    HardwareSpec hardware;
    int gpuCount = 0;
    std::optional<double> mfu; // given or measured; empty: ask the predictor
    std::optional<double> pricePerGpuHourUsd; // empty: the preset's typical price
};

// Achievable MFU (fraction of 1) of the scenario's job on `gpuCount` GPUs of `hardware`.
using MfuPredictor = std::function<double(const HardwareSpec& hardware, int gpuCount)>;

struct HardwareComparisonRow {
    std::string hardwareId;
    std::string hardwareName;
    int gpuCount = 0;
    double mfu = 0;
    bool mfuPredicted = false;
    double pricePerGpuHourUsd = 0;
    JobCost cost;
    double speedupVsFirst = 1; // first option's wall-clock / this one's
    double peakSpeedupVsFirst = 1; // the same ratio at equal MFU: cluster dense peaks
    double costRatioVsFirst = 1; // this one's dollars / the first option's
};

struct HardwareComparison {
    std::vector<HardwareComparisonRow> rows; // in the order given
    size_t cheapest = 0; // ties: the faster, then the earlier
    size_t fastest = 0; // ties: the cheaper, then the earlier
};

// Throws InputError naming the option (by hardware id) that has no MFU and no predictor, an MFU outside (0, 1], no
// price, or no dense BF16 peak; and for an empty list or non-positive tokens / FLOP per token.
HardwareComparison compareHardware(double tokens, double flopsPerToken, const std::vector<HardwareOption>& options,
    const MfuPredictor& predictor = {});

} // namespace mfu
