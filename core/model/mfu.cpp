#include "core/model/mfu.h"

#include <cmath>
#include <string>

#include "core/errors.h"
#include "core/number_format.h"

namespace mfu {

int64_t tokensPerStep(int64_t microBatch, int64_t seqLen, int64_t gradAccum, int64_t dataParallelRanks)
{
    if (microBatch <= 0 || seqLen <= 0 || gradAccum <= 0 || dataParallelRanks <= 0)
        throw InputError("tokens per step: micro-batch, sequence length, gradient accumulation and data-parallel "
                         "ranks must all be greater than zero");
    int64_t tokens = 0; // checked: a product past int64 would be undefined behaviour, not a number
    if (__builtin_mul_overflow(microBatch, seqLen, &tokens) || __builtin_mul_overflow(tokens, gradAccum, &tokens)
        || __builtin_mul_overflow(tokens, dataParallelRanks, &tokens))
        throw InputError("tokens per step: micro-batch x sequence length x gradient accumulation x data-parallel "
                         "ranks is too large");
    return tokens;
}

double tokensPerSecPerGpu(const Throughput& t, int gpuCount)
{
    if (gpuCount <= 0)
        throw InputError("GPU count must be greater than zero");
    return t.scope == ThroughputScope::PerGpu ? t.tokensPerSec : t.tokensPerSec / gpuCount;
}

Throughput throughputFromStep(double stepTimeSeconds, double tokensPerStepCount)
{
    if (!(stepTimeSeconds > 0) || !(tokensPerStepCount > 0) || !std::isfinite(stepTimeSeconds)
        || !std::isfinite(tokensPerStepCount))
        throw InputError("step time and tokens per step must be greater than zero");
    return { tokensPerStepCount / stepTimeSeconds, ThroughputScope::Cluster };
}

double stepSecondsAt(const Throughput& t, int gpuCount, double tokensPerStepCount)
{
    const double cluster = tokensPerSecPerGpu(t, gpuCount) * gpuCount;
    return cluster > 0 && tokensPerStepCount > 0 ? tokensPerStepCount / cluster : 0;
}

MfuResult computeMfu(double flopsPerToken, double recomputeFlopsPerToken, double tokensPerSecPerGpu_, int gpuCount,
    const HardwareSpec& hardware, TrainingPrecision precision, double usefulTokenFraction)
{
    if (!(usefulTokenFraction > 0 && usefulTokenFraction <= 1.0))
        throw InputError("the share of processed tokens that train the model must lie in (0, 1]");
    if (!(flopsPerToken > 0) || !std::isfinite(flopsPerToken))
        throw InputError("FLOP per token must be a positive number");
    if (!(tokensPerSecPerGpu_ > 0) || !std::isfinite(tokensPerSecPerGpu_))
        throw InputError("throughput must be a positive number of tokens per second");
    if (gpuCount <= 0)
        throw InputError("GPU count must be greater than zero");
    if (!(recomputeFlopsPerToken >= 0) || !std::isfinite(recomputeFlopsPerToken))
        throw InputError("recompute FLOP per token must be a finite number, zero or more");
    const auto bf16 = hardware.mfuPeak(); // FP16 on a device without BF16 (V100)
    if (!bf16 || !(*bf16 > 0))
        throw InputError("hardware '" + hardware.id + "' has no dense BF16 peak");

    MfuResult r;
    r.precision = precision;
    r.flopsPerToken = flopsPerToken;
    r.tokensPerSecPerGpu = tokensPerSecPerGpu_;
    r.tokensPerSecCluster = tokensPerSecPerGpu_ * gpuCount;
    r.usefulTokenFraction = usefulTokenFraction;
    r.usefulTokensPerSecPerGpu = tokensPerSecPerGpu_ * usefulTokenFraction;
    // Model FLOPs count only the tokens that train the model; padding kept in the batch is work but not progress.
    r.achievedFlopsPerGpu = flopsPerToken * r.usefulTokensPerSecPerGpu; // so that mfu == mfuAt(flopsPerToken, ...)
    r.achievedFlopsCluster = r.achievedFlopsPerGpu * gpuCount;
    if (!std::isfinite(r.achievedFlopsCluster))
        throw InputError("throughput too large to compute with: FLOP/s beyond the range of a number");
    r.peakFlopsPerGpu = *bf16;
    r.peakFormat = hardware.mfuPeakFormat();
    r.mfu = r.achievedFlopsPerGpu / r.peakFlopsPerGpu;
    r.hardwareFlopsPerToken = flopsPerToken + recomputeFlopsPerToken;
    r.hfu = r.hardwareFlopsPerToken * tokensPerSecPerGpu_ / r.peakFlopsPerGpu;
    r.mfuCeiling = utilisationCeiling(hardware, precision);
    if (const auto peak = linearLayerPeakFlops(hardware, precision)) {
        const bool fp8 = precision == TrainingPrecision::BF16_FP8;
        (fp8 ? r.fp8PeakFlopsPerGpu : r.fp4PeakFlopsPerGpu) = *peak;
        (fp8 ? r.mfuVsFp8Peak : r.mfuVsFp4Peak) = r.achievedFlopsPerGpu / *peak;
    }
    return r;
}

double mfuAt(double flopsPerToken, double usefulTokensPerSecPerGpu, double peakFlopsPerGpu)
{
    return flopsPerToken * usefulTokensPerSecPerGpu / peakFlopsPerGpu;
}

double mfuAtFlopsPerToken(const MfuResult& measured, double flopsPerToken)
{
    return mfuAt(flopsPerToken, measured.usefulTokensPerSecPerGpu, measured.peakFlopsPerGpu);
}

std::optional<std::string> impossibleMfuWarning(const MfuResult& r)
{
    if (!(r.mfu > r.mfuCeiling))
        return std::nullopt;
    return "MFU above " + mfuCeilingText(r.mfuCeiling, r.precision)
        + " is impossible: the tokens per step (global, all ranks), the GPU count or the model do not describe this "
          "run";
}

std::string mfuCeilingText(double ceiling, TrainingPrecision precision)
{
    if (!(ceiling > 1.0))
        return "100%";
    return formatPercent(ceiling) + " (the " + std::string(trainingPrecisionLabel(precision)) + " run's dense "
        + std::string(numberFormatLabel(linearLayerFormat(precision))) + " peak over the BF16 one)";
}

namespace {

// What every surface prints in place of a figure past the ceiling: how far past it the inputs go.
std::string notShownPastCeiling(double utilisation, double ceiling)
{
    return "not shown: " + formatNumber(utilisation / ceiling, 2) + "x what the GPU can compute";
}

} // namespace

std::string formatMeasuredMfu(double mfu, double ceiling)
{
    if (!(mfu > ceiling))
        return formatPercent(mfu);
    return notShownPastCeiling(mfu, ceiling);
}

bool impossibleMfu(const MfuResult& r)
{
    return r.mfu > r.mfuCeiling;
}

std::string formatMeasuredTflops(const MfuResult& r)
{
    if (!impossibleMfu(r))
        return formatTflops(r.achievedFlopsPerGpu);
    return notShownPastCeiling(r.mfu, r.mfuCeiling);
}

} // namespace mfu
