#include "core/diagnosis/diagnosis.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/number_format.h"

namespace mfu {

namespace {

bool agree(double a, double b, double tolerance = 0.03)
{
    return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

std::string tok(double v)
{
    return formatNumber(v, 0);
}
std::string tf(double flops)
{
    return formatNumber(flops / 1e12, 1);
}

// A per-GPU tokens/s that one stated figure implies under one reading of its scope.
struct Witness {
    double perGpu = 0;
    int group = 0; // independent measurements: 0 = tokens/s (and TFLOPS derived from it), 1 = step time
    StatedScope scope = StatedScope::Unknown;
    bool possible = true;
};

enum { kGroupTokensPerSec = 0, kGroupStep = 1 };

struct RunFacts {
    double densePeak = 0;
    double flopsCorrect = 0;
    std::string formula;
    double flopsStated = 0; // the report's own FLOP/token (or flopsCorrect when it states none)
    double maxPerGpu = 0; // tokens/s per GPU at 100% MFU
    std::optional<double> stepTokens; // global tokens per step, stated or computed
    // PaLM's formula over the packing length, when the run packs documents masked apart (the naive count).
    std::optional<double> flopsOverPackingLength;
    double effectiveAttentionLength = 0;
    std::vector<Witness> witnesses;
    bool achievedDerivedFromTokensPerSec = false;
};

void addScoped(std::vector<Witness>& out, double value, StatedScope stated, int gpus, int group)
{
    if (stated != StatedScope::Cluster)
        out.push_back({ value, group, StatedScope::PerGpu });
    if (stated != StatedScope::PerGpu && gpus > 1)
        out.push_back({ value / gpus, group, StatedScope::Cluster });
    if (stated == StatedScope::Cluster && gpus == 1)
        out.push_back({ value, group, StatedScope::Cluster });
}

RunFacts gatherFacts(const ReportedRun& run)
{
    RunFacts f;
    const auto peak = run.hardware.mfuPeak(); // BF16, or FP16 on a device without BF16
    if (!peak || *peak <= 0)
        throw InputError("run '" + run.label + "': GPU '" + run.hardware.id + "' has no dense BF16 peak");
    if (run.gpus <= 0)
        throw InputError("run '" + run.label + "': gpus must be greater than zero");
    f.densePeak = *peak;
    if (run.model) {
        if (!run.model->isBare() && !run.seqLen)
            throw InputError("run '" + run.label + "': seq_len is needed to count attention FLOPs for the model");
        const FlopsPerToken fpt = run.model->isBare()
            ? countFlopsPerToken(*run.model, run.seqLen.value_or(0))
            : countFlopsPerToken(*run.model, run.seqLen.value_or(0), run.packing);
        f.flopsCorrect = fpt.palm.value_or(fpt.sixN);
        f.flopsOverPackingLength = fpt.palmOverPackingLength;
        f.effectiveAttentionLength = fpt.effectiveAttentionLength;
        f.formula = fpt.palm ? "palm" : "six_n";
    } else if (run.flopsPerToken) {
        f.flopsCorrect = *run.flopsPerToken;
        f.formula = "stated";
    } else {
        throw InputError("run '" + run.label + "': give a model (or params) or the FLOP/token the report used");
    }
    f.flopsStated = run.flopsPerToken.value_or(f.flopsCorrect);
    f.maxPerGpu = f.densePeak / f.flopsCorrect;

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

// Which scope does a step time confirm for this run's tokens/s? (Used to read the report's other runs alike.)
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

struct NamedPeak {
    std::string what;
    double flops = 0;
    bool correct = false;
    std::string code;
};

std::vector<NamedPeak> candidatePeaks(const ReportedRun& run, const std::vector<HardwareSpec>& known)
{
    std::vector<NamedPeak> out;
    const std::string& name = run.hardware.name.empty() ? run.hardware.id : run.hardware.name;
    static const std::pair<NumberFormat, const char*> formats[]
        = { { NumberFormat::BF16, "BF16" }, { NumberFormat::FP16, "FP16" }, { NumberFormat::FP8, "FP8" },
              { NumberFormat::TF32, "TF32" }, { NumberFormat::FP32, "FP32" }, { NumberFormat::FP4, "FP4" } };
    const NumberFormat right = run.hardware.mfuPeakFormat();
    for (const auto& [format, label] : formats) {
        if (const auto d = run.hardware.densePeak(format))
            out.push_back({ "the " + name + "'s dense " + label + " peak", *d, format == right,
                format == right ? "" : "peak_wrong_precision" });
        if (const auto s = run.hardware.sparsePeak(format))
            out.push_back({ "the " + name + "'s " + label + " figure with 2:4 structured sparsity", *s, false,
                "peak_is_sparse" });
    }
    for (const auto& h : known)
        if (h.id != run.hardware.id)
            if (const auto d = h.mfuPeak())
                out.push_back({ "the " + h.name + "'s dense " + std::string(numberFormatLabel(h.mfuPeakFormat()))
                        + " peak (another GPU)",
                    *d, false, "peak_wrong_gpu" });
    return out;
}

// The finding for an MFU counted with attention over the whole packed sequence when documents are masked apart.
Finding packingLengthFinding(const RunFacts& f, const std::string& what, double stated)
{
    const double naive = *f.flopsOverPackingLength;
    return { "attention_counted_over_packing_length", "error",
        what + " counts attention over the packing length (12LHQS with S = the packed sequence, " + formatGflop(naive)
            + "/token), but each token attends only within its own document: with per-document masking the "
              "attention term runs over sum(d^2)/sum(d) = "
            + formatNumber(f.effectiveAttentionLength, 0) + " tokens, which gives " + formatGflop(f.flopsCorrect)
            + "/token. FLOP/token, and MFU, are overstated " + formatNumber(naive / f.flopsCorrect, 2) + "x.",
        { { "stated_flops_per_token", stated }, { "flops_per_token_over_packing_length", naive },
            { "corrected_flops_per_token", f.flopsCorrect },
            { "effective_attention_length", f.effectiveAttentionLength } } };
}

void checkFlopsPerToken(const ReportedRun& run, const RunFacts& f, std::vector<Finding>& out)
{
    if (!run.model || run.model->isBare() || !run.flopsPerToken || !run.seqLen)
        return;
    const double stated = *run.flopsPerToken;
    const ParameterCounts p = countParameters(*run.model);
    const double palm = f.flopsCorrect;
    const double attention = palm - 6.0 * double(p.activeNonEmbedding);
    const double sixNTotal = 6.0 * double(p.active);
    const std::string seq = formatNumber(double(*run.seqLen));
    if (agree(stated, palm, 0.01))
        return;
    if (f.flopsOverPackingLength && agree(stated, *f.flopsOverPackingLength, 0.01)) {
        out.push_back(packingLengthFinding(f, "The stated " + formatGflop(stated) + "/token", stated));
        return;
    }
    if (agree(stated, sixNTotal + attention, 0.01)) {
        out.push_back({ "flops_include_embeddings", "warning",
            "The stated " + formatGflop(stated) + "/token is 6N + 12LHQS with N = " + formatNumber(double(p.active))
                + " parameters, embeddings included. The " + formatNumber(double(p.embedding))
                + " embedding parameters are table lookups, not matmuls: PaLM/TorchTitan's 6(N - N_emb) + 12LHQS "
                  "gives "
                + formatGflop(palm) + "/token, so the report overstates FLOP/token (and MFU) by "
                + formatPercent(stated / palm - 1.0) + ".",
            { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", palm },
                { "embedding_params", double(p.embedding) } } });
        return;
    }
    if (agree(stated, sixNTotal, 0.01) || agree(stated, 6.0 * double(p.activeNonEmbedding), 0.01)) {
        const double share = attention / palm;
        out.push_back({ "attention_omitted", share > 0.05 ? "warning" : "info",
            "The stated " + formatGflop(stated)
                + "/token is a 6N count without the attention term 12LHQS, which at S = " + seq + " adds "
                + formatGflop(attention) + " (" + formatPercent(share) + " of the total). With it: " + formatGflop(palm)
                + "/token.",
            { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", palm },
                { "attention_flops_per_token", attention } } });
        return;
    }
    out.push_back({ "flops_per_token_mismatch", "info",
        "The stated " + formatGflop(stated) + "/token matches no standard formula for this model at S = " + seq
            + "; PaLM/TorchTitan gives " + formatGflop(palm) + " (" + formatNumber(stated / palm, 3) + "x).",
        { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", palm } } });
}

void checkPeak(const ReportedRun& run, const RunFacts& f, const std::vector<HardwareSpec>& known, RunDiagnosis& d,
    bool& peakIsClusterWide)
{
    peakIsClusterWide = false;
    if (!run.peakFlops)
        return;
    const double stated = *run.peakFlops;
    const auto peaks = candidatePeaks(run, known);
    const NamedPeak* match = nullptr;
    // Candidates in order of likelihood (the run's own precision first), each read per GPU or summed over the GPUs:
    // a 2-GPU B200 report's 9,000 TFLOPS is 2 x 4,500 (sparse BF16) before it is one GPU's dense FP4.
    for (const auto& p : peaks) {
        for (int scope = 0; scope < (run.gpus > 1 ? 2 : 1) && !match; ++scope)
            if (agree(scope == 0 ? stated : stated / run.gpus, p.flops, 0.01)) {
                match = &p;
                peakIsClusterWide = scope == 1;
            }
        if (match)
            break;
    }
    const std::string right = tf(f.densePeak) + " TFLOPS";
    if (!match) {
        d.findings.push_back({ "peak_unrecognised", "warning",
            "The peak " + tf(stated) + " TFLOPS matches no figure of this or any known GPU, per GPU or for all "
                + std::to_string(run.gpus) + ". MFU uses the dense BF16 peak: " + right + " per GPU.",
            { { "stated_peak_tflops", stated / 1e12 }, { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 },
                { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 } } });
        return;
    }
    const std::string asStated = peakIsClusterWide
        ? tf(stated) + " TFLOPS is " + std::to_string(run.gpus) + " x " + tf(match->flops) + " TFLOPS, "
        : tf(stated) + " TFLOPS is ";
    if (!match->correct)
        d.findings.push_back({ match->code, "error",
            "Wrong peak: " + asStated + match->what
                + ". MFU is measured against the dense peak of the precision the "
                  "run trains in: "
                + right + " (dense BF16) per GPU for this GPU.",
            { { "stated_peak_tflops", stated / 1e12 }, { "peak_used_tflops_per_gpu", match->flops / 1e12 },
                { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 },
                { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 } } });
}

RunDiagnosis diagnoseRun(
    const ReportedRun& run, const RunFacts& f, StatedScope hint, const std::vector<HardwareSpec>& known)
{
    RunDiagnosis d;
    d.label = run.label;
    d.flopsPerToken = f.flopsCorrect;
    d.flopsFormula = f.formula;
    d.peakFlopsPerGpu = f.densePeak;
    checkFlopsPerToken(run, f, d.findings);

    bool allImpossible = false;
    const Witness chosen = chooseThroughput(f, hint, allImpossible);
    d.tokensPerSecPerGpu = chosen.perGpu;
    d.tokensPerSecCluster = chosen.perGpu * run.gpus;
    // Model FLOPs count the tokens that train the model: padding kept in the batch is left out.
    d.achievedFlopsPerGpu = chosen.perGpu * usefulTokenFraction(run.packing) * f.flopsCorrect;
    d.mfu = d.achievedFlopsPerGpu / f.densePeak;
    d.consistent = !allImpossible;
    d.maxTokensPerSecPerGpu = f.maxPerGpu;
    if (run.precision == TrainingPrecision::BF16_FP8) {
        if (const auto fp8 = run.hardware.densePeak(NumberFormat::FP8); fp8 && *fp8 > 0) {
            d.fp8PeakFlopsPerGpu = *fp8;
            d.mfuVsFp8Peak = d.achievedFlopsPerGpu / *fp8;
        } else {
            d.findings.push_back({ "fp8_without_fp8_peak", "warning",
                "The run is stated as BF16+FP8, but " + run.hardware.name
                    + " has no dense FP8 peak (no FP8 tensor cores): its matmuls ran in 16 bits. MFU is against the "
                      "BF16 peak either way.",
                {} });
        }
    }
    if (run.flopsPerToken && f.formula != "stated")
        d.mfuWithStatedFlops = chosen.perGpu * *run.flopsPerToken / f.densePeak;
    d.throughputBasis = chosen.group == kGroupStep ? "tokens per step / step time"
        : run.tokensPerSec                         ? "stated tokens/s, read as "
            + std::string(chosen.scope == StatedScope::Cluster ? "the whole run's" : "per GPU")
                           : "stated achieved TFLOPS / FLOP per token";

    if (run.tokensPerSec && run.tokensPerSecScope == StatedScope::Unknown && run.gpus > 1 && chosen.group != kGroupStep
        && !allImpossible)
        d.findings.push_back({ "tokens_per_sec_scope", "info",
            "The stated " + tok(*run.tokensPerSec) + " tokens/s is "
                + (chosen.scope == StatedScope::PerGpu
                        ? "per GPU: the whole run of " + std::to_string(run.gpus) + " GPUs processes "
                            + tok(d.tokensPerSecCluster) + " tokens/s."
                        : "for the whole run: " + tok(d.tokensPerSecPerGpu) + " tokens/s per GPU."),
            { { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu },
                { "tokens_per_sec_cluster", d.tokensPerSecCluster } } });

    // Stated figures that disagree with the chosen throughput.
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
            message += ", which would need " + tf(w.perGpu * f.flopsCorrect) + " TFLOPS per GPU, "
                + formatNumber(w.perGpu / f.maxPerGpu, 1) + "x the dense peak: impossible";
        message += ". The other figures imply " + formatNumber(impliedStep, 2) + " s per step ("
            + formatNumber(ratio, 1) + "x " + (ratio > 1 ? "longer" : "shorter") + " than stated)"
            + (cause.empty() ? "." : "; the factor matches " + cause + ".");
        d.findings.push_back({ "step_time_inconsistent", "error", message,
            { { "stated_step_time_s", *run.stepTimeSeconds }, { "implied_step_time_s", impliedStep },
                { "tokens_per_step", *f.stepTokens } } });
    }
    if (run.tokensPerSec && chosen.group == kGroupStep) {
        bool any = false;
        for (const auto& w : f.witnesses)
            any = any || (w.group == kGroupTokensPerSec && agree(w.perGpu, chosen.perGpu));
        if (!any) {
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
                    + " tokens per step / " + formatNumber(*run.stepTimeSeconds, 3)
                    + " s = " + tok(d.tokensPerSecCluster) + " tokens/s (" + formatNumber(ratio, 2) + "x)"
                    + (cause.empty() ? "." : ": it leaves out " + cause + "."),
                { { "stated_tokens_per_sec", *run.tokensPerSec }, { "tokens_per_sec_cluster", d.tokensPerSecCluster },
                    { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu } } });
        }
    }
    if (allImpossible)
        d.findings.push_back({ "impossible_throughput", "error",
            "Every stated throughput needs more than the GPU's dense peak: " + tok(chosen.perGpu)
                + " tokens/s per GPU x " + formatGflop(f.flopsCorrect) + "/token = " + tf(d.achievedFlopsPerGpu)
                + " TFLOPS against " + tf(f.densePeak) + " TFLOPS.",
            { { "tokens_per_sec_per_gpu", chosen.perGpu }, { "max_tokens_per_sec_per_gpu", f.maxPerGpu } } });

    bool peakIsClusterWide = false;
    checkPeak(run, f, known, d, peakIsClusterWide);
    if (peakIsClusterWide && run.achievedFlops) {
        const double perGpuAchieved = chosen.perGpu * f.flopsStated;
        if (agree(*run.achievedFlops, perGpuAchieved))
            d.findings.push_back({ "per_gpu_over_cluster_peak", "error",
                "Per-GPU numerator over a cluster-wide denominator: " + tf(*run.achievedFlops)
                    + " TFLOPS is what ONE GPU achieves (" + tok(chosen.perGpu) + " tokens/s per GPU x "
                    + formatGflop(f.flopsStated) + "), but " + tf(*run.peakFlops) + " TFLOPS is the peak of all "
                    + std::to_string(run.gpus) + " GPUs. The ratio shrinks " + std::to_string(run.gpus)
                    + "x as GPUs are added even when every GPU works as hard.",
                { { "achieved_tflops_per_gpu", perGpuAchieved / 1e12 },
                    { "achieved_tflops_cluster", perGpuAchieved * run.gpus / 1e12 } } });
    }
    if (run.mfu && run.achievedFlops && run.peakFlops && !agree(*run.mfu, *run.achievedFlops / *run.peakFlops, 0.02))
        d.findings.push_back({ "mfu_arithmetic", "warning",
            "The stated MFU " + formatPercent(*run.mfu) + " is not " + tf(*run.achievedFlops) + " / "
                + tf(*run.peakFlops) + " TFLOPS = " + formatPercent(*run.achievedFlops / *run.peakFlops) + ".",
            { { "stated_mfu", *run.mfu } } });
    // A stated MFU (without a stated FLOP/token) that only the packing-length count explains.
    if (run.mfu && !run.flopsPerToken && f.flopsOverPackingLength && d.peakFlopsPerGpu > 0) {
        const double naiveMfu
            = chosen.perGpu * usefulTokenFraction(run.packing) * *f.flopsOverPackingLength / d.peakFlopsPerGpu;
        const double rightMfu = chosen.perGpu * usefulTokenFraction(run.packing) * f.flopsCorrect / d.peakFlopsPerGpu;
        if (agree(*run.mfu, naiveMfu, 0.03) && !agree(*run.mfu, rightMfu, 0.03)) {
            Finding finding = packingLengthFinding(f, "The stated MFU of " + formatPercent(*run.mfu), *run.mfu);
            finding.message += " Corrected MFU: " + formatPercent(rightMfu) + ".";
            finding.figures.erase("stated_flops_per_token");
            finding.figures["stated_mfu"] = *run.mfu;
            finding.figures["corrected_mfu"] = rightMfu;
            d.findings.push_back(finding);
        }
    }
    if ((run.mfu && *run.mfu > 1.0) || (d.consistent && d.mfu > 1.0))
        d.findings.push_back({ "mfu_above_100", "error",
            "MFU above 100% is impossible: "
                + (run.mfu && *run.mfu > 1.0 ? "the report states " + formatPercent(*run.mfu)
                                             : "the figures imply " + formatPercent(d.mfu))
                + ". Look for a sparse or wrong-GPU peak, or a throughput counted on the wrong scope.",
            { { "mfu", d.mfu } } });

    if (!d.consistent) {
        std::map<std::string, double> bound { { "max_tokens_per_sec_per_gpu", f.maxPerGpu },
            { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 }, { "flops_per_token", f.flopsCorrect } };
        if (run.mfu)
            bound["stated_mfu"] = *run.mfu;
        d.findings.push_back({ "no_consistent_reading", "error",
            "No consistent reading of the figures fits the "
                + (run.hardware.name.empty() ? run.hardware.id : run.hardware.name) + ": at "
                + formatGflop(f.flopsCorrect) + "/token its dense BF16 peak of " + tf(f.densePeak)
                + " TFLOPS allows at most " + tok(f.maxPerGpu) + " tokens/s per GPU (100% MFU), and every stated "
                + "throughput needs more. There is no corrected MFU; check the GPU, the GPU count and the model.",
            bound });
        return d;
    }
    std::string summary = "Corrected MFU: " + tok(d.tokensPerSecPerGpu) + " tokens/s per GPU x "
        + formatGflop(f.flopsCorrect) + "/token ("
        + (f.formula == "palm"         ? "PaLM/TorchTitan formula"
                : f.formula == "six_n" ? "6N"
                                       : "as stated")
        + ") = " + tf(d.achievedFlopsPerGpu) + " TFLOPS per GPU / " + tf(f.densePeak)
        + " TFLOPS dense BF16 = " + formatPercent(d.mfu) + ".";
    if (d.mfuVsFp8Peak)
        summary += " Against the dense FP8 peak of " + tf(*d.fp8PeakFlopsPerGpu)
            + " TFLOPS (BF16+FP8 run): " + formatPercent(*d.mfuVsFp8Peak) + ".";
    if (d.mfuWithStatedFlops)
        summary += " With the report's own " + formatGflop(*run.flopsPerToken)
            + "/token: " + formatPercent(*d.mfuWithStatedFlops) + ".";
    if (run.mfu)
        summary += " The report said " + formatPercent(*run.mfu) + ".";
    std::map<std::string, double> figures { { "corrected_mfu", d.mfu },
        { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu }, { "achieved_tflops_per_gpu", d.achievedFlopsPerGpu / 1e12 },
        { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 }, { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 },
        { "flops_per_token", f.flopsCorrect } };
    if (d.mfuVsFp8Peak) {
        figures["mfu_vs_fp8_peak"] = *d.mfuVsFp8Peak;
        figures["peak_dense_fp8_tflops_per_gpu"] = *d.fp8PeakFlopsPerGpu / 1e12;
    }
    if (run.mfu)
        figures["stated_mfu"] = *run.mfu;
    if (d.mfuWithStatedFlops)
        figures["mfu_with_stated_flops_per_token"] = *d.mfuWithStatedFlops;
    d.findings.push_back({ "corrected_mfu", "info", summary, figures });
    return d;
}

std::vector<Finding> compareRuns(const std::vector<ReportedRun>& runs, const std::vector<RunFacts>& facts,
    const std::vector<RunDiagnosis>& diagnosed)
{
    std::vector<Finding> out;
    const auto& base = diagnosed.front();
    for (size_t i = 1; i < runs.size(); ++i) {
        const auto& run = diagnosed[i];
        if (facts[0].stepTokens && facts[i].stepTokens && !agree(*facts[0].stepTokens, *facts[i].stepTokens, 0.01))
            out.push_back({ "different_work_per_step", "warning",
                "'" + runs[0].label + "' and '" + runs[i].label
                    + "' do different work per step: " + tok(*facts[0].stepTokens) + " vs " + tok(*facts[i].stepTokens)
                    + " tokens (" + formatNumber(*facts[i].stepTokens / *facts[0].stepTokens, 1)
                    + "x). Their iteration times are not comparable; compare tokens/s per GPU or MFU instead.",
                { { "tokens_per_step_baseline", *facts[0].stepTokens },
                    { "tokens_per_step", *facts[i].stepTokens } } });
        const double gpuRatio = double(runs[i].gpus) / runs[0].gpus;
        const double efficiency = run.tokensPerSecPerGpu / base.tokensPerSecPerGpu;
        const double clusterRatio = run.tokensPerSecCluster / base.tokensPerSecCluster;
        const bool scaled = efficiency >= 0.9;
        out.push_back({ "scaling", scaled ? "info" : "warning",
            "From " + std::to_string(runs[0].gpus) + " to " + std::to_string(runs[i].gpus)
                + " GPUs, tokens/s per GPU went from " + tok(base.tokensPerSecPerGpu) + " to "
                + tok(run.tokensPerSecPerGpu) + " (" + formatPercent(efficiency)
                + " scaling efficiency) and the whole run from " + tok(base.tokensPerSecCluster) + " to "
                + tok(run.tokensPerSecCluster) + " tokens/s (" + formatNumber(clusterRatio, 2) + "x on "
                + formatNumber(gpuRatio, 2) + "x the GPUs): " + (scaled ? "it scaled. " : "it did not scale well. ")
                + "Corrected MFU " + formatPercent(base.mfu) + " -> " + formatPercent(run.mfu) + ".",
            { { "scaling_efficiency", efficiency }, { "throughput_ratio", clusterRatio }, { "gpu_ratio", gpuRatio },
                { "mfu_baseline", base.mfu }, { "mfu", run.mfu } } });
        if (runs[0].mfu && runs[i].mfu) {
            const double statedRatio = *runs[i].mfu / *runs[0].mfu;
            const double correctedRatio = run.mfu / base.mfu;
            if (!agree(statedRatio, correctedRatio, 0.1))
                out.push_back({ "reported_mfu_change_artifact", "error",
                    "The reported MFU went from " + formatPercent(*runs[0].mfu) + " to " + formatPercent(*runs[i].mfu)
                        + " (" + formatNumber(statedRatio, 2) + "x) while the corrected MFU went from "
                        + formatPercent(base.mfu) + " to " + formatPercent(run.mfu) + " ("
                        + formatNumber(correctedRatio, 2)
                        + "x): the change is an artefact of how the report computes "
                          "MFU (see each run's findings), not of how hard the GPUs work.",
                    { { "stated_mfu_ratio", statedRatio }, { "corrected_mfu_ratio", correctedRatio } } });
        }
    }
    return out;
}

} // namespace

Diagnosis diagnose(const std::vector<ReportedRun>& runs, const std::vector<HardwareSpec>& knownHardware)
{
    if (runs.empty())
        throw InputError("no runs to diagnose");
    std::vector<RunFacts> facts;
    int votes[3] = { 0, 0, 0 };
    for (const auto& run : runs) {
        facts.push_back(gatherFacts(run));
        votes[int(confirmedScope(facts.back()))]++;
    }
    const StatedScope hint = votes[int(StatedScope::PerGpu)] > votes[int(StatedScope::Cluster)] ? StatedScope::PerGpu
        : votes[int(StatedScope::Cluster)] > votes[int(StatedScope::PerGpu)]                    ? StatedScope::Cluster
                                                                                                : StatedScope::Unknown;
    Diagnosis result;
    for (size_t i = 0; i < runs.size(); ++i)
        result.runs.push_back(diagnoseRun(runs[i], facts[i], hint, knownHardware));
    if (runs.size() > 1)
        result.comparison = compareRuns(runs, facts, result.runs);
    result.mfu = result.runs.back().mfu;
    return result;
}

} // namespace mfu
