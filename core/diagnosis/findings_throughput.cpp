// The stated throughputs against each other: which scope tokens/s was stated in, a step time the other figures
// contradict, tokens/s that leave out accumulation or ranks, and figures no GPU can reach.
#include "core/diagnosis/diagnosis_findings.h"
#include "core/number_format.h"

namespace mfu::diagnosis_detail {

namespace {

void scopeOfTokensPerSec(const ReportedRun& run, const Witness& chosen, bool allImpossible, RunDiagnosis& d)
{
    if (!run.tokensPerSec || run.tokensPerSecScope != StatedScope::Unknown || run.gpus <= 1
        || chosen.group == kGroupStep || allImpossible)
        return;
    d.findings.push_back({ "tokens_per_sec_scope", "info",
        "The stated " + tok(*run.tokensPerSec) + " tokens/s is "
            + (chosen.scope == StatedScope::PerGpu
                    ? "per GPU: the whole run of " + std::to_string(run.gpus) + " GPUs processes "
                        + tok(d.tokensPerSecCluster) + " tokens/s."
                    : "for the whole run: " + tok(d.tokensPerSecPerGpu) + " tokens/s per GPU."),
        { { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu }, { "tokens_per_sec_cluster", d.tokensPerSecCluster } } });
}

// A stated step time that disagrees with the chosen throughput.
void stepTimeAgainstThroughput(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d)
{
    for (const auto& w : f.witnesses) {
        if (w.group != kGroupStep || agree(w.perGpu, chosen.perGpu))
            continue;
        const double ratio = w.perGpu / chosen.perGpu;
        const double impliedStep = *f.stepTokens / d.tokensPerSecCluster;
        const std::string cause = causeOfRatio(ratio > 1 ? ratio : 1 / ratio, run);
        std::string message = "Step time and throughput disagree: " + tok(*f.stepTokens) + " tokens per step / "
            + formatNumber(*run.stepTimeSeconds, 3) + " s = " + tok(w.perGpu * run.gpus) + " tokens/s (" + tok(w.perGpu)
            + " per GPU)";
        if (!w.possible)
            message += ", which would need " + formatTflopsValue(w.perGpu * f.flopsCorrect) + " TFLOPS per GPU, "
                + formatNumber(w.perGpu / f.maxPerGpu, 1) + "x the dense " + f.boundPeakPrecision + " peak: impossible";
        message += ". The other figures imply " + formatNumber(impliedStep, 2) + " s per step ("
            + formatNumber(ratio, 1) + "x " + (ratio > 1 ? "longer" : "shorter") + " than stated)"
            + (cause.empty() ? "." : "; the factor matches " + cause + ".");
        d.findings.push_back({ "step_time_inconsistent", "error", message,
            { { "stated_step_time_s", *run.stepTimeSeconds }, { "implied_step_time_s", impliedStep },
                { "tokens_per_step", *f.stepTokens } } });
    }
}

// Stated tokens/s that no reading agrees with once a step time has set the throughput.
void tokensPerSecAgainstStep(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d)
{
    if (!run.tokensPerSec || chosen.group != kGroupStep)
        return;
    for (const auto& w : f.witnesses)
        if (w.group == kGroupTokensPerSec && agree(w.perGpu, chosen.perGpu))
            return;
    const double statedPerGpu
        = run.tokensPerSecScope == StatedScope::Cluster ? *run.tokensPerSec / run.gpus : *run.tokensPerSec;
    const double ratio = chosen.perGpu / statedPerGpu;
    const std::string cause = causeOfRatio(ratio, run);
    std::string code = "tokens_per_sec_inconsistent";
    if (cause.rfind("gradient accumulation (", 0) == 0)
        code = "tokens_per_sec_ignores_grad_accum";
    else if (cause.rfind("the ", 0) == 0)
        code = "tokens_per_sec_ignores_dp_ranks";
    d.findings.push_back({ code, "error",
        "The stated " + tok(*run.tokensPerSec) + " tokens/s disagrees with " + tok(*f.stepTokens)
            + " tokens per step / " + formatNumber(*run.stepTimeSeconds, 3) + " s = " + tok(d.tokensPerSecCluster)
            + " tokens/s (" + formatNumber(ratio, 2) + "x)" + (cause.empty() ? "." : ": it leaves out " + cause + "."),
        { { "stated_tokens_per_sec", *run.tokensPerSec }, { "tokens_per_sec_cluster", d.tokensPerSecCluster },
            { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu } } });
}

} // namespace

void checkThroughputReadings(
    const ReportedRun& run, const RunFacts& f, const Witness& chosen, bool allImpossible, RunDiagnosis& d)
{
    scopeOfTokensPerSec(run, chosen, allImpossible, d);
    stepTimeAgainstThroughput(run, f, chosen, d);
    tokensPerSecAgainstStep(run, f, chosen, d);
    if (allImpossible)
        d.findings.push_back({ "impossible_throughput", "error",
            "Every stated throughput needs more than the GPU's dense " + f.boundPeakPrecision
                + " peak: " + tok(chosen.perGpu) + " tokens/s per GPU x " + formatGflop(f.flopsCorrect)
                + "/token = " + formatTflopsValue(d.achievedFlopsPerGpu) + " TFLOPS against "
                + formatTflopsValue(f.boundPeak) + " TFLOPS.",
            { { "tokens_per_sec_per_gpu", chosen.perGpu }, { "max_tokens_per_sec_per_gpu", f.maxPerGpu } } });
}

} // namespace mfu::diagnosis_detail
