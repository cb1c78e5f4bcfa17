#pragma once
// HardwareSpec: one accelerator as its datasheet describes it, per GPU. Peak FLOP/s are DENSE; the 2:4-sparsity
// headline figures are kept apart (peakSparseFlops) so they can be recognised in a report, and are never used as
// an MFU denominator. ClusterSpec: that accelerator times a GPU count, grouped into scale-up domains.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/precision.h"

namespace mfu {

struct HardwareSpec {
    std::string id; // preset id: "b200", "h100-sxm"
    std::string name; // "NVIDIA B200 (HGX)"
    std::string vendor;

    std::array<std::optional<double>, kNumberFormatCount> peakDenseFlops {}; // FLOP/s per GPU, by NumberFormat
    std::array<std::optional<double>, kNumberFormatCount> peakSparseFlops {}; // 2:4 sparsity headline, FLOP/s

    double hbmBytes = 0; // memory capacity per GPU
    double hbmBandwidthBytesPerSec = 0;
    int scaleUpDomainGpus = 1; // GPUs in one NVLink/NVSwitch (or ICI, Infinity Fabric) domain: 8 for HGX, 72 for NVL72
    double scaleUpBandwidthBytesPerSec = 0; // per GPU, one direction
    std::string scaleUpName; // "NVLink 5"
    double scaleOutBandwidthBytesPerSec = 0; // per GPU, one direction (400 Gb/s InfiniBand = 50e9 B/s)
    // The GPU's link to host memory, per GPU and one direction, what offloaded optimizer state and activations
    // cross: PCIe Gen5 x16 (64 GB/s) on HGX H100/H200/B200, NVLink-C2C on Grace superchips (900 GB/s both ways
    // per superchip, shared by its GPUs). 0: not stated (the cost model then assumes PCIe Gen5 x16).
    double hostLinkBytesPerSec = 0;
    std::string hostLinkName; // "PCIe Gen5 x16", "NVLink-C2C"
    double pricePerGpuHourUsd = 0;
    std::optional<double> powerWatts; // board power per GPU, for energy estimates
    // The cost model's efficiency constants are not a datasheet figure: they live beside the scenario
    // (Scenario::costModel) and the preset library (PresetLibrary::costModelFor), keyed by this id.

    // Source of each figure, keyed like the preset file's fields ("peak_dense_tflops.bf16", "memory_gb", ...).
    std::map<std::string, std::string> sources;

    // GPU names (as a trace's deviceProperties, Nsight's TARGET_INFO_GPU or a training log print them) that mean
    // this preset: case-insensitive globs, '*' any run of characters, '?' one (core/presets/gpu_match.h).
    std::vector<std::string> matchPatterns;

    std::optional<double> densePeak(NumberFormat f) const { return peakDenseFlops[static_cast<size_t>(f)]; }
    std::optional<double> sparsePeak(NumberFormat f) const { return peakSparseFlops[static_cast<size_t>(f)]; }
    // The MFU denominator: the dense BF16 peak, or the dense FP16 peak on a device without BF16 (V100).
    NumberFormat mfuPeakFormat() const
    {
        return densePeak(NumberFormat::BF16) || !densePeak(NumberFormat::FP16) ? NumberFormat::BF16
                                                                               : NumberFormat::FP16;
    }
    std::optional<double> mfuPeak() const { return densePeak(mfuPeakFormat()); }
    // What to call this GPU in a sentence: its name, or its preset id where the file gave none.
    const std::string& displayName() const { return name.empty() ? id : name; }
};

// Whether a device memory a program reports (PyTorch's total_memory, bytes) can be this GPU's: within 15% of its
// datasheet memory. Datasheets give decimal GB and drivers binary GiB less what they reserve (an A100 80GB reports
// 79.1 GiB, a V100 16GB 15.8 GiB: 6-7% apart), while GPUs of one peak differ far more (A100 40 vs 80 GB, T4's 15 GiB
// vs A100's). A GPU without a stated memory never contradicts.
bool deviceMemoryAgrees(const HardwareSpec& hardware, double reportedBytes);

// The GPUs of `known` whose dense MFU peak a figure is (a log's TFLOPS / MFU: the peak its logger divided by), within
// `tolerance` of the larger of the two, nearest first. Peaks of different GPUs can lie within a log's rounding of each
// other (B200 2,250 and MI350X 2,300 TFLOPS): the nearest is the likelier, whichever file lists it first. GPUs of one
// peak keep their file order.
std::vector<const HardwareSpec*> gpusOfDensePeak(double peak, const std::vector<HardwareSpec>& known, double tolerance);

// The most GPUs a run may have, in every editor, flag and file: ten times the largest cluster announced (about a
// million GPUs), and beyond it a count is a typing error, not a cluster.
inline constexpr int kMaxClusterGpus = 10'000'000;

struct ClusterSpec {
    HardwareSpec hardware;
    int gpuCount = 1;
    int gpusPerScaleUpDomain = 0; // 0: use hardware.scaleUpDomainGpus

    int domainSize() const { return gpusPerScaleUpDomain > 0 ? gpusPerScaleUpDomain : hardware.scaleUpDomainGpus; }
};

// Throws InputError naming the first figure that is missing or absurd.
void validateHardwareSpec(const HardwareSpec& spec);

// The cluster's own network in place of the preset's typical one (a preset's "one 400 Gb/s NIC per GPU; depends on
// the cluster"): per GPU, one direction, in Gb/s as NICs are sold. Its source then says it was stated. Throws
// InputError when the figure is not a network (below 1 Gb/s or beyond 800,000).
inline constexpr int kMaxNetworkGbitPerSec = 800'000;
// The network's preset key (Gb/s per GPU), under which HardwareSpec::sources keeps where its figure came from.
inline constexpr const char* kScaleOutKey = "scale_out_gbitps";
void setStatedScaleOut(HardwareSpec& hardware, double gbitPerSec);
// Whether the network was stated so (its source says setStatedScaleOut's words).
bool scaleOutStated(const HardwareSpec& hardware);
// Where the network's figure came from (the preset's source, or that it was stated); empty when the GPU has none.
std::string scaleOutSource(const HardwareSpec& hardware);
// A network figure as typed, six significant digits and its unit: "6.25 Gb/s", "1e+30 Gb/s" (never 31 digits of float
// noise, nor 0.0004 rounded to 0.000). The refusal, the text output and the sweep's star all name it so.
std::string formatGbitPerSec(double gbitPerSec);
inline double scaleOutGbitPerSec(const HardwareSpec& hardware)
{
    return hardware.scaleOutBandwidthBytesPerSec * 8.0 / 1e9;
}

// A training precision as it runs on this GPU: the 16-bit mode is FP16 on a GPU without BF16 (V100), whose FP16 peak
// is then its MFU denominator, so every surface that names the mode says "FP16" there ("FP16", "FP16+FP8"), and
// "BF16", "BF16+FP8" elsewhere.
std::string trainingPrecisionLabel(TrainingPrecision precision, const HardwareSpec& hardware);

// The dense peak of a BF16+FP8 or BF16+FP4 run's linear layers (FP8 or FP4), where the GPU has one; nullopt for BF16
// runs and GPUs without it. The peak calc, predict and diagnose quote the run's second MFU against.
std::optional<double> linearLayerPeakFlops(const HardwareSpec& hardware, TrainingPrecision precision);

// The dense peak a run's FLOPs may reach per GPU: the MFU peak (BF16, FP16 on a GPU without BF16) for BF16 runs, the
// FP8 peak for BF16+FP8 runs and the FP4 peak for BF16+FP4 runs, where the GPU has one (its linear layers compute in
// that format); the MFU peak where it has none. 0 without any peak.
double precisionPeakFlops(const HardwareSpec& hardware, TrainingPrecision precision);

// The highest MFU (and HFU) a run can reach. MFU is quoted against the BF16 dense peak (the convention), so a run
// whose linear layers compute in FP8 or FP4 can pass 100%: MLPerf Training v5.1's Llama 3.1 405B on 512 GB300 in
// NVFP4 ran 3,682 TFLOPS per GPU, 147% of the BF16 peak, and v5.0's FP8 run on 512 H200 reached 98% of it. The
// ceiling is the precision's peak over the BF16 peak (2 for FP8 on Hopper, 4 for FP4 on GB300), 1 for BF16 runs.
// One function for every surface: the cost model's physical bounds and bands, a measured MFU, a diagnosed report.
double utilisationCeiling(const HardwareSpec& hardware, TrainingPrecision precision);

} // namespace mfu
