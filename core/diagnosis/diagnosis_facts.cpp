// What one reported run states, gathered into witnesses of its per-GPU throughput, and the reading most of them
// agree on (core/diagnosis/diagnosis_findings.h).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/diagnosis/diagnosis_findings.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "core/relative_gap.h"

namespace mfu::diagnosis_detail {

bool agree(double a, double b, double tolerance)
{
    return agreeWithin(a, b, tolerance);
}

std::string tok(double v)
{
    return formatNumber(v, 0);
}

namespace {

void addScoped(std::vector<Witness>& out, double value, StatedScope stated, int gpus, int group)
{
    if (stated != StatedScope::Cluster)
        out.push_back({ value, group, StatedScope::PerGpu });
    if (stated != StatedScope::PerGpu && gpus > 1)
        out.push_back({ value / gpus, group, StatedScope::Cluster });
    if (stated == StatedScope::Cluster && gpus == 1)
        out.push_back({ value, group, StatedScope::Cluster });
}

// FLOP/token of the run's model under its formula, and every formula's count beside it.
void countModelFlops(const ReportedRun& run, RunFacts& f)
{
    const ModelSpec& model = *run.model;
    if (!model.isBare() && !run.seqLen)
        throw InputError("run '" + run.label + "': seq_len is needed to count attention FLOPs for the model");
    const FlopsPerToken fpt = model.isBare() ? countFlopsPerToken(model, run.seqLen.value_or(0))
                                             : countFlopsPerToken(model, run.seqLen.value_or(0), run.packing);
    const FlopFormula formula = flopFormulaFor(model, run.formula);
    f.flopsCorrect = fpt.get(formula).value_or(fpt.sixN);
    f.formula = std::string(flopFormulaKey(formula));
    f.palmFlops = fpt.palm.value_or(0.0);
    f.flopsOverPackingLength = fpt.palmOverPackingLength;
    f.effectiveAttentionLength = fpt.effectiveAttentionLength;
    f.modelCounts = fpt;
}

} // namespace

RunFacts gatherFacts(const ReportedRun& run)
{
    RunFacts f;
    const auto peak = run.hardware.mfuPeak(); // BF16, or FP16 on a device without BF16
    if (!peak || *peak <= 0)
        throw InputError("run '" + run.label + "': GPU '" + run.hardware.id + "' has no dense BF16 peak");
    if (run.gpus <= 0)
        throw InputError("run '" + run.label + "': gpus must be greater than zero");
    f.densePeak = *peak;
    f.peakPrecision = std::string(numberFormatLabel(run.hardware.mfuPeakFormat()));
    if (run.model) {
        countModelFlops(run, f);
    } else if (run.flopsPerToken) {
        f.flopsCorrect = *run.flopsPerToken;
        f.formula = "stated";
    } else {
        throw InputError("run '" + run.label + "': give a model (or params) or the FLOP/token the report used");
    }
    f.flopsStated = run.flopsPerToken.value_or(f.flopsCorrect);
    f.boundPeak = precisionPeakFlops(run.hardware, run.precision);
    f.mfuCeiling = utilisationCeiling(run.hardware, run.precision);
    f.boundPeakPrecision
        = f.mfuCeiling > 1.0 ? std::string(numberFormatLabel(linearLayerFormat(run.precision))) : f.peakPrecision;
    f.maxPerGpu = f.boundPeak / f.flopsCorrect;

    if (run.tokensPerStep)
        f.stepTokens = run.tokensPerStep;
    else if (run.microBatch && run.seqLen && run.gradAccum)
        // In double: each count may be up to 1e15, so their product in int64 could overflow.
        f.stepTokens = double(*run.microBatch) * double(*run.seqLen) * double(*run.gradAccum) * run.gpus;

    if (run.tokensPerSec)
        addScoped(f.witnesses, *run.tokensPerSec, run.tokensPerSecScope, run.gpus, kGroupTokensPerSec);
    if (run.achievedFlops) {
        // Loggers derive TFLOPS from their own tokens/s: then it is the same measurement, not a second witness.
        const double implied = *run.achievedFlops / f.flopsStated;
        f.achievedDerivedFromTokensPerSec = run.tokensPerSec
            && (agree(implied, *run.tokensPerSec, 0.01) || agree(implied, *run.tokensPerSec / run.gpus, 0.01)
                || agree(implied, *run.tokensPerSec * run.gpus, 0.01));
        if (!f.achievedDerivedFromTokensPerSec)
            addScoped(f.witnesses, *run.achievedFlops / f.flopsStated, run.achievedScope, run.gpus, kGroupTokensPerSec);
    }
    if (f.stepTokens && run.stepTimeSeconds && *run.stepTimeSeconds > 0)
        f.witnesses.push_back({ *f.stepTokens / *run.stepTimeSeconds / run.gpus, kGroupStep, StatedScope::Cluster });
    if (f.witnesses.empty())
        throw InputError("run '" + run.label
            + "': no throughput stated (tokens_per_sec, achieved_tflops, or "
              "step_time_s with tokens_per_step or micro_batch/seq_len/grad_accum)");
    for (auto& w : f.witnesses)
        w.possible = w.perGpu <= f.maxPerGpu * 1.0001 && w.perGpu > 0;
    return f;
}

StatedScope confirmedScope(const RunFacts& f)
{
    const Witness* step = nullptr;
    for (const auto& w : f.witnesses)
        if (w.group == kGroupStep && w.possible)
            step = &w;
    if (!step)
        return StatedScope::Unknown;
    for (const auto& w : f.witnesses)
        if (w.group == kGroupTokensPerSec && agree(w.perGpu, step->perGpu))
            return w.scope;
    return StatedScope::Unknown;
}

Witness chooseThroughput(const RunFacts& f, StatedScope hint, bool& allImpossible)
{
    std::vector<Witness> pool;
    for (const auto& w : f.witnesses)
        if (w.possible)
            pool.push_back(w);
    allImpossible = pool.empty();
    if (allImpossible)
        pool = f.witnesses;
    auto support = [&](const Witness& w) {
        bool groups[2] = { false, false };
        for (const auto& o : pool)
            if (agree(o.perGpu, w.perGpu))
                groups[o.group] = true;
        return int(groups[0]) + int(groups[1]);
    };
    auto rank = [&](const Witness& w) {
        // More independent agreement first; then the scope another run confirmed; then the primary measurement
        // (tokens per step over step time) over the logger's derived tokens/s.
        return std::make_tuple(support(w), w.scope == hint ? 1 : 0, w.group == kGroupStep ? 1 : 0);
    };
    return *std::max_element(
        pool.begin(), pool.end(), [&](const Witness& a, const Witness& b) { return rank(a) < rank(b); });
}

std::string causeOfRatio(double ratio, const ReportedRun& run)
{
    auto near = [&](double x) { return x > 1.0 && agree(ratio, x, 0.02); };
    if (run.gradAccum && near(double(*run.gradAccum)))
        return "gradient accumulation (" + std::to_string(*run.gradAccum) + " micro-steps)";
    if (near(double(run.gpus)))
        return "the " + std::to_string(run.gpus) + " data-parallel ranks";
    if (run.gradAccum && near(double(*run.gradAccum) * run.gpus))
        return "gradient accumulation times data-parallel ranks";
    return {};
}

} // namespace mfu::diagnosis_detail
