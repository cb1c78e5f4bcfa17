#include "core/scenario/scenario_facts.h"

#include <algorithm>

#include "core/errors.h"
#include "core/number_format.h"

namespace mfu {

FlopFormula scenarioFlopFormula(const Scenario& s)
{
    return flopFormulaFor(s.model, s.mfuFormula);
}

FlopsPerToken scenarioFlopCounts(const Scenario& s)
{
    return countFlopsPerToken(s.model, s.workload.seqLen, s.workload.packing);
}

double scenarioFlopsPerToken(const Scenario& s)
{
    const FlopsPerToken f = scenarioFlopCounts(s);
    return f.get(scenarioFlopFormula(s)).value_or(f.sixN);
}

double scenarioRecomputeFlopsPerToken(const Scenario& s)
{
    return recomputeFlopsPerToken(
        s.model, s.workload.seqLen, s.workload.packing, s.activationCheckpointing, scenarioFlopFormula(s));
}

std::optional<double> scenarioVisionFlopsPerToken(const Scenario& s)
{
    if (!s.model.vision || s.workload.vision.tokensPerSequence <= 0)
        return std::nullopt;
    return visionFlopsPerSequenceToken(*s.model.vision, s.workload.vision, s.workload.seqLen);
}

std::optional<double> scenarioMfuWithVision(const Scenario& s)
{
    const auto vision = scenarioVisionFlopsPerToken(s);
    const auto mfu = scenarioMeasuredMfu(s);
    if (!vision || !mfu)
        return std::nullopt;
    return mfuAtFlopsPerToken(*mfu, mfu->flopsPerToken + *vision);
}

std::optional<std::string> parallelLayoutError(const Scenario& s)
{
    const Parallelism& p = s.parallelism;
    const int gpus = s.cluster.gpuCount;
    if (gpus < 1)
        return "the GPU count must be at least 1 (got " + std::to_string(gpus) + ")";
    if (p.tp < 1 || p.pp < 1 || p.cp < 1 || p.hsdpReplicas < 1)
        return std::string("the parallel degrees (TP, PP, CP, HSDP replicas) must each be at least 1");
    const long long fixed = static_cast<long long>(p.tp) * p.pp * p.cp * p.hsdpReplicas;
    if (gpus % fixed != 0)
        return std::to_string(gpus) + " GPUs do not divide into TP " + std::to_string(p.tp) + " x PP "
            + std::to_string(p.pp) + " x CP " + std::to_string(p.cp) + " x " + std::to_string(p.hsdpReplicas)
            + " HSDP replica(s) = " + std::to_string(fixed) + ": choose degrees whose product divides the GPU count";
    return std::nullopt;
}

int dataParallelRanks(const Scenario& s)
{
    if (const auto error = parallelLayoutError(s))
        throw InputError("parallel layout: " + *error);
    const Parallelism& p = s.parallelism;
    return s.cluster.gpuCount / (p.tp * p.pp * p.cp);
}

int64_t tokensPerMicroStep(const Scenario& s)
{
    return tokensPerStep(s.workload.microBatch, s.workload.seqLen, 1, dataParallelRanks(s));
}

int64_t scenarioMicroSteps(const Scenario& s)
{
    try {
        return microStepsForBatch(s.workload.globalBatchTokens, tokensPerMicroStep(s));
    } catch (const InputError&) {
        return 0; // no layout, no micro-step
    }
}

int64_t processedTokensPerStep(const Scenario& s)
{
    try {
        const int64_t perMicroStep = tokensPerMicroStep(s);
        return microStepsForBatch(s.workload.globalBatchTokens, perMicroStep) * perMicroStep;
    } catch (const InputError&) {
        return 0;
    }
}

int64_t microStepsForBatch(int64_t batchTokens, int64_t perMicroStep)
{
    if (batchTokens <= 0 || perMicroStep <= 0)
        return 1;
    return std::max<int64_t>(1, batchTokens / perMicroStep + (batchTokens % perMicroStep != 0 ? 1 : 0));
}

std::optional<std::string> globalBatchRoundingNote(const Scenario& s)
{
    const int64_t perMicroStep = tokensPerMicroStep(s);
    const int64_t batch = s.workload.globalBatchTokens;
    if (batch <= 0 || perMicroStep <= 0 || batch % perMicroStep == 0)
        return std::nullopt;
    const int64_t steps = microStepsForBatch(batch, perMicroStep);
    return "the global batch of " + formatNumber(double(batch)) + " tokens is not a whole number of micro-steps of "
        + formatNumber(double(perMicroStep)) + " tokens (micro-batch x sequence x data-parallel ranks): predicted at "
        + formatNumber(double(steps * perMicroStep)) + " tokens (" + std::to_string(steps) + " micro-step"
        + (steps == 1 ? "" : "s") + ")";
}

MfuResult scenarioMfuAtStepTime(const Scenario& s, double tokensPerStep, double stepSeconds)
{
    if (!(tokensPerStep > 0) || s.cluster.gpuCount <= 0 || !(stepSeconds > 0))
        throw InputError("measured MFU needs positive tokens per step, GPU count and step time");
    Scenario measured = s;
    measured.measuredThroughput = throughputFromStep(stepSeconds, tokensPerStep);
    return *scenarioMeasuredMfu(measured);
}

namespace {

// A recompute FLOP/token the formula cannot count (a bare model) adds nothing: HFU is then MFU.
template <typename Count> double recomputeOrZero(Count count)
{
    try {
        return count();
    } catch (const InputError&) {
        return 0;
    }
}

MfuResult measuredAt(const Scenario& s, double flopsPerToken, double recompute)
{
    return computeMfu(flopsPerToken, recompute, tokensPerSecPerGpu(*s.measuredThroughput, s.cluster.gpuCount),
        s.cluster.gpuCount, s.cluster.hardware, s.precision, usefulTokenFraction(s.workload.packing));
}

} // namespace

std::optional<MfuResult> scenarioMeasuredMfuUnder(const Scenario& s, FlopFormula formula)
{
    const std::optional<double> perToken = scenarioFlopCounts(s).get(formula);
    if (!s.measuredThroughput || !perToken)
        return std::nullopt;
    const double recompute = recomputeOrZero([&] {
        return recomputeFlopsPerToken(
            s.model, s.workload.seqLen, s.workload.packing, s.activationCheckpointing, formula);
    });
    return measuredAt(s, *perToken, recompute);
}

std::optional<MfuResult> scenarioMeasuredMfuOverPackingLength(const Scenario& s)
{
    const std::optional<double> perToken = scenarioFlopCounts(s).palmOverPackingLength;
    if (!s.measuredThroughput || !perToken)
        return std::nullopt;
    const double recompute = recomputeOrZero([&] {
        return recomputeFlopsPerToken(s.model, s.workload.seqLen, s.activationCheckpointing, FlopFormula::PaLM);
    });
    return measuredAt(s, *perToken, recompute);
}

std::optional<MfuResult> scenarioMeasuredMfu(const Scenario& s)
{
    if (!s.measuredThroughput)
        return std::nullopt;
    return computeMfu(scenarioFlopsPerToken(s), scenarioRecomputeFlopsPerToken(s),
        tokensPerSecPerGpu(*s.measuredThroughput, s.cluster.gpuCount), s.cluster.gpuCount, s.cluster.hardware,
        s.precision, usefulTokenFraction(s.workload.packing));
}

} // namespace mfu
