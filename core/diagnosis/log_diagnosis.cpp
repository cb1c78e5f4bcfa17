#include "core/diagnosis/log_diagnosis.h"

#include <cmath>

#include "core/errors.h"
#include "core/presets/gpu_match.h"

namespace mfu::trace {

namespace {

std::optional<HardwareSpec> hardwareNamed(
    const std::optional<std::string>& device, const std::vector<HardwareSpec>& known)
{
    if (!device)
        return std::nullopt;
    const auto id = proposeHardwarePresetId(*device, known); // the presets' "match" name patterns
    if (!id)
        return std::nullopt;
    for (const auto& h : known)
        if (h.id == *id)
            return h;
    return std::nullopt;
}

StatedScope statedScope(LogScope scope)
{
    return scope == LogScope::PerGpu ? StatedScope::PerGpu : StatedScope::Unknown;
}

} // namespace

std::optional<int64_t> impliedSeqLen(const LogFacts& facts, std::optional<int> gpus)
{
    const int n = gpus.value_or(facts.gpus.value_or(0));
    if (!facts.tokensPerStep || !facts.microBatch || !facts.gradAccum || n <= 0)
        return std::nullopt;
    const double seq = *facts.tokensPerStep / (double(*facts.microBatch) * double(*facts.gradAccum) * n);
    return seq >= 1 && seq == std::floor(seq) && seq < 1e9 ? std::optional(int64_t(seq)) : std::nullopt;
}

ReportedRun reportedRunFromLog(const TrainingLog& log, const LogSummary& summary, const LogRunContext& context,
    const std::vector<HardwareSpec>& knownHardware)
{
    const LogFacts& facts = log.facts;
    ReportedRun run;
    run.label = context.label;
    if (context.hardware)
        run.hardware = *context.hardware;
    else if (const auto named = hardwareNamed(facts.device, knownHardware))
        run.hardware = *named;
    else if (facts.device && matchGpuName(*facts.device, knownHardware).ambiguous())
        throw InputError(context.label + ": "
            + unmatchedGpuHint(*facts.device, matchGpuName(*facts.device, knownHardware), "the user presets folder"));
    else
        throw InputError(context.label + ": the log names no GPU with a known preset"
            + (facts.device ? " ('" + *facts.device + "')" : std::string()) + "; give the GPU");
    run.gpus = context.gpus.value_or(facts.gpus.value_or(1));
    run.gpusStated = context.gpus || facts.gpus;
    run.model = context.model;
    run.precision = context.precision;
    run.formula = context.formula;
    run.seqLen = context.seqLen ? context.seqLen : facts.seqLen ? facts.seqLen : impliedSeqLen(facts, run.gpus);
    run.microBatch = facts.microBatch;
    run.gradAccum = facts.gradAccum;
    run.tokensPerStep = context.tokensPerStep ? context.tokensPerStep : facts.tokensPerStep;
    // Megatron and torchtitan count samples; after a ramp-up, the batch of the steps the medians keep.
    if (const auto batch = summary.globalBatchSamples ? summary.globalBatchSamples : facts.globalBatchSamples;
        !run.tokensPerStep && batch && run.seqLen)
        run.tokensPerStep = double(*batch) * double(*run.seqLen);
    run.stepTimeSeconds = summary.medianStepSeconds;
    run.tokensPerSec = summary.medianTokensPerSec;
    run.tokensPerSecScope = statedScope(log.scope);
    if (summary.medianTflops)
        run.achievedFlops = *summary.medianTflops * 1e12;
    run.achievedScope = statedScope(log.scope);
    if (const auto peak = summary.medianPeakTflops ? summary.medianPeakTflops : facts.peakTflops) {
        run.peakFlops = *peak * 1e12;
        run.peakFromDevice = true;
    } else if (log.format == "nanogpt" && summary.medianMfu) {
        // nanoGPT prints no peak: it always divides by the A100's, which the diagnosis then checks as stated.
        run.peakFlops = kNanoGptPeakFlops;
    }
    run.flopsPerToken = summary.medianFlopsPerToken;
    run.mfu = summary.medianMfu;
    run.deviceMemoryBytes = facts.deviceMemoryBytes;
    return run;
}

LogRunContext scenarioLogContext(
    const Scenario& scenario, double scenarioTokensPerStep, const TrainingLog& log, const std::string& label)
{
    const LogFacts& f = log.facts;
    LogRunContext c;
    c.label = label;
    c.model = scenario.model;
    c.hardware = scenario.cluster.hardware;
    c.precision = scenario.precision;
    c.formula = scenario.mfuFormula;
    if (!f.gpus)
        c.gpus = scenario.cluster.gpuCount;
    if (!f.seqLen && !impliedSeqLen(f))
        c.seqLen = scenario.workload.seqLen;
    if (!f.tokensPerStep && !f.globalBatchSamples && scenarioTokensPerStep > 0)
        c.tokensPerStep = scenarioTokensPerStep;
    return c;
}

LogCheck checkLog(const TrainingLog& log, const LogRunContext& context, const std::vector<HardwareSpec>& knownHardware,
    size_t warmupSteps)
{
    LogCheck check;
    check.summary = summarizeLog(log, warmupSteps);
    try {
        check.diagnosis = diagnose({ reportedRunFromLog(log, check.summary, context, knownHardware) }, knownHardware);
    } catch (const InputError& e) {
        check.unavailable = e.what();
    }
    return check;
}

} // namespace mfu::trace
