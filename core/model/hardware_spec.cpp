#include "core/model/hardware_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/number_format.h"
#include "core/relative_gap.h"
#include "core/units.h"

// Messages name the figure by its preset-file key ("peak_dense_tflops.bf16: ..."), so a problem found here in a
// preset reads the same as one found while parsing it.
namespace mfu {

namespace {

// Per-GPU ceilings well above any shipping part: a figure past them is almost surely in the wrong unit
// (FLOP/s typed into a TFLOPS field, MB into a GB field).
constexpr double kMaxPeakFlops = 1e17; // 100,000 TFLOPS
constexpr double kMaxHbmBytes = 1e13; // 10 TB
constexpr double kMaxBandwidth = 1e14; // 100 TB/s

// Floors well below any accelerator anyone trains on (a 2014 K80 had 4 TFLOPS FP32, 24 GB and 480 GB/s; a Jetson
// Nano 0.5 TFLOPS FP16, 4 GB and 25 GB/s): a figure under them is a typo or a unit slip, and a peak or bandwidth
// near zero turns every time into inf s and every MFU into NaN%.
constexpr double kMinPeakFlops = 1e11; // 0.1 TFLOPS
constexpr double kMinHbmBytes = 1e8; // 0.1 GB
constexpr double kMinBandwidth = 1e8; // 0.1 GB/s, below 1 Gb/s Ethernet (0.125 GB/s): HBM, scale-up, scale-out
constexpr double kMinPowerWatts = 1;

std::string tflopsText(double flops)
{
    const double tflops = flops / kTera;
    std::string text = std::to_string(tflops);
    text.erase(text.find_last_not_of('0') + 1); // "2250.000000" -> "2250."
    if (!text.empty() && text.back() == '.')
        text.pop_back();
    return text;
}

void checkPeak(const std::optional<double>& peak, const std::string& key)
{
    if (!peak)
        return;
    if (!std::isfinite(*peak) || *peak <= 0)
        throw FieldError(key, "must be positive");
    if (*peak > kMaxPeakFlops)
        throw FieldError(key, "over 100,000 TFLOPS per GPU: is the figure in TFLOPS?");
    if (*peak < kMinPeakFlops)
        throw FieldError(key, "under 0.1 TFLOPS per GPU, below any accelerator: is the figure in TFLOPS?");
}

void checkPositive(double value, const std::string& key, double floor, double ceiling, const std::string& unitHint)
{
    if (!std::isfinite(value) || value <= 0)
        throw FieldError(key, "must be positive");
    if (value > ceiling)
        throw FieldError(key, "implausibly large per GPU: is the figure in " + unitHint + "?");
    if (value < floor)
        throw FieldError(key, "implausibly small per GPU, below any accelerator: is the figure in " + unitHint + "?");
}

// 0 means "not stated" (no scale-up link, no price); anything else is held to the floor.
void checkNonNegative(double value, const std::string& key, double floor, double ceiling, const std::string& unitHint)
{
    if (!std::isfinite(value) || value < 0)
        throw FieldError(key, "must not be negative");
    if (value > ceiling)
        throw FieldError(key, "implausibly large per GPU: is the figure in " + unitHint + "?");
    if (value > 0 && value < floor)
        throw FieldError(key, "implausibly small per GPU (0 if there is none): is the figure in " + unitHint + "?");
}

} // namespace

void validateHardwareSpec(const HardwareSpec& spec)
{
    if (spec.id.empty())
        throw FieldError("id", "missing");
    if (spec.name.empty())
        throw FieldError("name", "missing");

    for (int i = 0; i < kNumberFormatCount; ++i) {
        const auto format = static_cast<NumberFormat>(i);
        const std::string formatKey(numberFormatKey(format));
        const auto dense = spec.densePeak(format);
        const auto sparse = spec.sparsePeak(format);
        checkPeak(dense, "peak_dense_tflops." + formatKey);
        checkPeak(sparse, "peak_sparse_tflops." + formatKey);
        // The sparse headline is the dense figure with 2:4 sparsity: it can equal dense, never be below it.
        if (dense && sparse && *sparse < *dense)
            throw FieldError("peak_sparse_tflops." + formatKey,
                "sparse figure " + tflopsText(*sparse) + " is below the dense " + tflopsText(*dense)
                    + " TFLOPS: the two are swapped or one is wrong");
    }
    // MFU is defined against the BF16 dense peak (FP16 on a device without BF16); without one nothing is measured.
    if (!spec.mfuPeak())
        throw FieldError("peak_dense_tflops.bf16",
            "missing (the BF16 dense peak is the MFU denominator; a GPU without BF16, such as V100, gives \"fp16\")");

    checkPositive(spec.hbmBytes, "memory_gb", kMinHbmBytes, kMaxHbmBytes, "GB");
    checkPositive(spec.hbmBandwidthBytesPerSec, "hbm_bandwidth_gbps", kMinBandwidth, kMaxBandwidth, "GB/s");
    if (spec.scaleUpDomainGpus < 1)
        throw FieldError("scale_up.domain_gpus", "must be at least 1");
    checkNonNegative(spec.scaleUpBandwidthBytesPerSec, "scale_up.bandwidth_gbps", kMinBandwidth, kMaxBandwidth, "GB/s");
    checkNonNegative(spec.scaleOutBandwidthBytesPerSec, kScaleOutKey, kMinBandwidth, kMaxBandwidth, "Gb/s");
    checkNonNegative(spec.hostLinkBytesPerSec, "host_link.bandwidth_gbps", kMinBandwidth, kMaxBandwidth, "GB/s");
    // A price has no physical floor: $0.0001 an hour is odd but yields finite costs.
    checkNonNegative(spec.pricePerGpuHourUsd, "price_per_gpu_hour_usd", 0, 1e4, "USD per GPU-hour");
    if (spec.powerWatts)
        checkPositive(*spec.powerWatts, "power_watts", kMinPowerWatts, 1e5, "watts");
}

namespace {
constexpr const char* kStatedScaleOutSource
    = "stated for this cluster (Network per GPU in the window, --scale-out-gbps on the command line)";
}

void setStatedScaleOut(HardwareSpec& hardware, double gbitPerSec)
{
    // 1 Gb/s (the slowest Ethernet) to kMaxBandwidth (100 TB/s = 800,000 Gb/s).
    static_assert(kMaxNetworkGbitPerSec * 1e9 / 8.0 == kMaxBandwidth);
    if (!(gbitPerSec >= 1 && gbitPerSec <= kMaxNetworkGbitPerSec))
        throw InputError(formatGbitPerSec(gbitPerSec) + " is not a network per GPU (from 1 to "
            + formatNumber(kMaxNetworkGbitPerSec) + " Gb/s)");
    hardware.scaleOutBandwidthBytesPerSec = gbitPerSec * 1e9 / 8.0;
    hardware.sources[kScaleOutKey] = kStatedScaleOutSource;
}

std::string formatGbitPerSec(double gbitPerSec)
{
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.6g", gbitPerSec);
    return std::string(figure) + " Gb/s";
}

bool scaleOutStated(const HardwareSpec& hardware)
{
    return scaleOutSource(hardware) == kStatedScaleOutSource;
}

std::string scaleOutSource(const HardwareSpec& hardware)
{
    const auto source = hardware.sources.find(kScaleOutKey);
    return source != hardware.sources.end() ? source->second : std::string();
}

std::string trainingPrecisionLabel(TrainingPrecision precision, const HardwareSpec& hardware)
{
    std::string sixteen(numberFormatLabel(hardware.mfuPeakFormat())); // not const: returned by move
    if (precision == TrainingPrecision::BF16)
        return sixteen;
    return sixteen + "+" + std::string(numberFormatLabel(linearLayerFormat(precision)));
}

bool deviceMemoryAgrees(const HardwareSpec& hardware, double reportedBytes)
{
    if (!(hardware.hbmBytes > 0) || !(reportedBytes > 0))
        return true;
    return std::abs(reportedBytes - hardware.hbmBytes) <= 0.15 * hardware.hbmBytes;
}

std::vector<const HardwareSpec*> gpusOfDensePeak(double peak, const std::vector<HardwareSpec>& known, double tolerance)
{
    std::vector<std::pair<double, const HardwareSpec*>> near;
    for (const HardwareSpec& h : known)
        if (const auto dense = h.mfuPeak(); dense && *dense > 0) {
            const double apart = relativeGap(peak, *dense);
            if (apart <= tolerance)
                near.emplace_back(apart, &h);
        }
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<const HardwareSpec*> gpus;
    gpus.reserve(near.size());
    for (const auto& [apart, h] : near)
        gpus.push_back(h);
    return gpus;
}

std::optional<double> linearLayerPeakFlops(const HardwareSpec& hardware, TrainingPrecision precision)
{
    if (precision == TrainingPrecision::BF16)
        return std::nullopt;
    const auto peak = hardware.densePeak(linearLayerFormat(precision));
    return peak && *peak > 0 ? peak : std::nullopt;
}

double precisionPeakFlops(const HardwareSpec& hardware, TrainingPrecision precision)
{
    return linearLayerPeakFlops(hardware, precision).value_or(hardware.mfuPeak().value_or(0.0));
}

double utilisationCeiling(const HardwareSpec& hardware, TrainingPrecision precision)
{
    const double bf16 = hardware.mfuPeak().value_or(0.0);
    const double peak = precisionPeakFlops(hardware, precision);
    return bf16 > 0 && peak > bf16 ? peak / bf16 : 1.0;
}

} // namespace mfu
