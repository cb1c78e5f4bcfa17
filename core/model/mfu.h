#pragma once
// MFU, HFU and achieved TFLOPS from a measured throughput.
//   achieved FLOP/s per GPU = FLOP/token x tokens/s per GPU
//   MFU = achieved / dense peak per GPU of the training precision
//   HFU = (FLOP/token + recompute FLOP/token) x tokens/s per GPU / the same peak
// Throughput is per GPU or per cluster, stated explicitly (ThroughputScope); a step time is turned into tokens/s
// with tokens per step = micro-batch x sequence x gradient accumulation x data-parallel ranks.
// BF16+FP8 runs: MFU is ambiguous (Lambda's MFU paper gives TFLOPS), so both readings are given, labelled: against
// the BF16 dense peak (`mfu`, comparable with BF16 runs) and against the FP8 dense peak (`mfuVsFp8Peak`).
#include <cstdint>
#include <optional>
#include <string>

#include "core/model/hardware_spec.h"
#include "core/model/precision.h"

namespace mfu {

enum class ThroughputScope { PerGpu, Cluster };

struct Throughput {
    double tokensPerSec = 0;
    ThroughputScope scope = ThroughputScope::Cluster;
};

// Global tokens per optimizer step. dataParallelRanks counts replicas that each see their own micro-batches.
int64_t tokensPerStep(int64_t microBatch, int64_t seqLen, int64_t gradAccum, int64_t dataParallelRanks);
// tokens/s per GPU from any of the accepted forms.
double tokensPerSecPerGpu(const Throughput& t, int gpuCount);
Throughput throughputFromStep(double stepTimeSeconds, double tokensPerStep); // cluster scope
// The inverse: the step time a throughput implies for tokensPerStep tokens per step (whole cluster), 0 when either is
// not positive. The scenario editor shows it when the user switches the measurement to a step time.
double stepSecondsAt(const Throughput& t, int gpuCount, double tokensPerStep);

struct MfuResult {
    double flopsPerToken = 0;
    double tokensPerSecPerGpu = 0;
    double tokensPerSecCluster = 0;
    double usefulTokenFraction = 1.0; // 1 - padding fraction
    double usefulTokensPerSecPerGpu = 0; // the tokens MFU counts
    double achievedFlopsPerGpu = 0; // model FLOP/s: FLOP/token x useful tokens/s
    double achievedFlopsCluster = 0;
    double peakFlopsPerGpu = 0; // the MFU denominator: BF16 dense peak (also for BF16+FP8, see above)
    NumberFormat peakFormat = NumberFormat::BF16; // FP16 on a device without BF16 (V100)
    double mfu = 0;
    double hardwareFlopsPerToken = 0; // FLOP/token + recompute
    double hfu = 0;
    TrainingPrecision precision = TrainingPrecision::BF16;
    std::optional<double> fp8PeakFlopsPerGpu; // BF16+FP8 runs on GPUs with an FP8 peak
    std::optional<double> mfuVsFp8Peak;
    std::optional<double> fp4PeakFlopsPerGpu; // BF16+FP4 runs on GPUs with an FP4 peak
    std::optional<double> mfuVsFp4Peak; // as predict's mfu_vs_fp4_peak
    // The highest MFU (and HFU) the run can reach: 1, or for BF16+FP8 and BF16+FP4 the FP8 or FP4 dense peak over
    // the BF16 one, since such linear layers can outrun the BF16 peak MFU is quoted against (utilisationCeiling).
    double mfuCeiling = 1.0;
};

// Throws InputError when the hardware lacks a dense peak for the precision, or inputs are not positive.
// usefulTokenFraction: trained tokens per processed token (1 - the padding kept in the batch, core/model/packing.h).
// tokensPerSecPerGpu counts processed tokens; MFU counts the useful ones, HFU the processed ones.
MfuResult computeMfu(double flopsPerToken, double recomputeFlopsPerToken, double tokensPerSecPerGpu, int gpuCount,
    const HardwareSpec& hardware, TrainingPrecision precision, double usefulTokenFraction = 1.0);

// The MFU a measured throughput gives under a FLOP/token of its own: flopsPerToken x the useful tokens/s per GPU over
// the dense peak, as computeMfu counts it. One function for every "MFU at another count" (another formula, the
// packing length, the vision encoder added), so each reads the same wherever it is shown.
double mfuAt(double flopsPerToken, double usefulTokensPerSecPerGpu, double peakFlopsPerGpu);
// The same measured run (its useful tokens/s per GPU and peak) under another FLOP/token.
double mfuAtFlopsPerToken(const MfuResult& measured, double flopsPerToken);

// Said wherever a measured MFU is printed: above 100% (r.mfuCeiling: more for BF16+FP8 and BF16+FP4) no GPU can be, so
// the inputs describe no single run. nullopt at or below it.
std::optional<std::string> impossibleMfuWarning(const MfuResult& r);
// That ceiling in words, as every "MFU above ... is impossible" says it: "100%", or "200.00% (the BF16+FP8 run's
// dense FP8 peak over the BF16 one)".
std::string mfuCeilingText(double ceiling, TrainingPrecision precision);
// A measured MFU (or HFU) as every surface prints it: the percentage up to the ceiling; above it no figure, only how
// far past the ceiling the inputs go ("not shown: 1.24x what the GPU can compute"), so an impossible figure is never
// read as a run's MFU (calc, the Calculator and its formula table, the report's Measured section; a trace withholds
// its own as core/facts/shown_mfu.h says).
std::string formatMeasuredMfu(double mfu, double ceiling = 1.0);
// Achieved TFLOPS per GPU as every surface prints it: withheld, as the MFU it gives, when that MFU is impossible.
std::string formatMeasuredTflops(const MfuResult& r);
// Whether a measured MFU passes what its GPU can compute (r.mfuCeiling): its MFU, HFU and TFLOPS are then withheld
// (an HFU alone past it is withheld by formatMeasuredMfu).
bool impossibleMfu(const MfuResult& r);

} // namespace mfu
