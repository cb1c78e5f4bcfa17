#include "core/trace/trace_mfu.h"

#include <cmath>

#include "core/number_format.h"
#include "core/presets/gpu_match.h"

namespace mfu::trace {

std::optional<HardwareSpec> traceHardware(const RankAnalysis& rank, const std::vector<HardwareSpec>& presets)
{
    if (!rank.gpuName)
        return std::nullopt;
    const auto id = proposeHardwarePresetId(*rank.gpuName, presets);
    if (!id)
        return std::nullopt;
    for (const auto& h : presets)
        if (h.id == *id)
            return h;
    return std::nullopt;
}

namespace {

// `flops` over the rank's analysed steps (the model's, or what the kernels executed), possible or not.
std::optional<TraceMfu> anyRankFigure(const RankAnalysis& rank, const FlopsByPrecision& flops, const HardwareSpec& hw)
{
    if (!rank.opFlops.recordsShapes)
        return std::nullopt;
    return traceMfu(flops, static_cast<double>(rank.stepWallNs()) / 1e9, hw);
}

std::optional<TraceMfu> anyRankTraceMfu(const RankAnalysis& rank, const HardwareSpec& hardware)
{
    return anyRankFigure(rank, rank.opFlops.inSteps, hardware);
}

// The share of the ranks' GEMM and attention kernel time that no operator's shapes reach, pooled over the ranks.
double pooledUnattributedShare(const RunAnalysis& run)
{
    int64_t matrixNs = 0, unattributedNs = 0;
    for (const auto& r : run.ranks) {
        matrixNs += r.opFlops.matrixKernelNs;
        unattributedNs += r.opFlops.unattributedMatrixNs;
    }
    return matrixNs > 0 ? static_cast<double>(unattributedNs) / static_cast<double>(matrixNs) : 0.0;
}

std::optional<TraceMfu> possible(std::optional<TraceMfu> m)
{
    return m && m->mfu <= 1.0 ? m : std::nullopt;
}

// The scenario's FLOPs per step over the trace's operators'. The two MFUs divide by different times: the measured
// one by the loop's mean step, the trace's by each step's wall-clock time, which is the GPU window when the host ran
// ahead. Their ratio is the FLOPs' only once each is multiplied back by its own time (the peaks cancel).
double flopsPerStepRatio(const RunAnalysis& run, double traceMfu, double measuredMfu)
{
    double windowSeconds = 0;
    int ranks = 0;
    for (const auto& r : run.ranks) {
        if (!r.opFlops.recordsShapes || r.steps.empty())
            continue;
        windowSeconds += static_cast<double>(r.stepWallNs()) / 1e9 / static_cast<double>(r.steps.size());
        ++ranks;
    }
    if (!(traceMfu > 0))
        return 0.0;
    if (ranks == 0 || !(windowSeconds > 0) || !(run.meanStepSeconds > 0))
        return measuredMfu / traceMfu;
    return measuredMfu * run.meanStepSeconds / (traceMfu * windowSeconds / ranks);
}

} // namespace

std::optional<TraceMfu> rankTraceMfu(const RankAnalysis& rank, const HardwareSpec& hardware)
{
    return possible(anyRankTraceMfu(rank, hardware));
}

std::optional<TraceMfu> rankTraceHfu(const RankAnalysis& rank, const HardwareSpec& hardware)
{
    // The executed FLOPs hold the model's (tallied together), so there is an HFU wherever there is a trace MFU.
    return possible(anyRankFigure(rank, rank.opFlops.inStepsExecuted, hardware));
}

std::optional<double> traceMfuAbovePeak(const RankAnalysis& rank, const HardwareSpec& hardware)
{
    const auto m = anyRankTraceMfu(rank, hardware);
    return m && m->mfu > 1.0 ? std::optional(m->mfu) : std::nullopt;
}

std::optional<TraceMfu> stepTraceMfu(const RankAnalysis& rank, size_t step, const HardwareSpec& hardware)
{
    if (!rank.opFlops.recordsShapes || step >= rank.steps.size() || step >= rank.opFlops.perStep.size())
        return std::nullopt;
    return possible(traceMfu(rank.opFlops.perStep[step], static_cast<double>(rank.stepWallNs(step)) / 1e9, hardware));
}

RunTraceMfu traceMfuOfRun(const RunAnalysis& run, const std::vector<HardwareSpec>& presets)
{
    RunTraceMfu out;
    bool shapes = false, gpu = false;
    double sum = 0, above = 0, hfuSum = 0;
    int n = 0, nAbove = 0, nHfu = 0;
    int64_t impossible = 0;
    for (const auto& r : run.ranks) {
        shapes = shapes || r.opFlops.recordsShapes;
        impossible += r.opFlops.opsWithImpossibleShapes;
        const auto hw = traceHardware(r, presets);
        gpu = gpu || hw.has_value();
        const auto m = hw ? anyRankTraceMfu(r, *hw) : std::nullopt;
        if (!m)
            continue;
        sum += m->mfu;
        ++n;
        if (const auto h = rankTraceHfu(r, *hw)) {
            hfuSum += h->mfu;
            ++nHfu;
        }
        if (m->mfu > 1.0) {
            above += m->mfu;
            ++nAbove;
        }
    }
    out.unattributedShare = pooledUnattributedShare(run);
    // Shapes that were recorded but name tensors no device could hold are a cause the trace's own kernels do not
    // show: said beside the two usual ones when a rank had any.
    const std::string uncounted = formatPercent(out.unattributedShare)
        + " of the GEMM and attention kernel time has no operator shapes (kernels a CUDA graph replays record none, "
          "nor do operators profiled without shapes"
        + (impossible > 0 ? "; " + formatCount(static_cast<double>(impossible), "operator")
                    + " recorded shapes no device could hold, and are not counted"
                          : std::string())
        + ")";
    if (!shapes) {
        out.note = "not available: the trace records no operator shapes (profile with record_shapes=True)";
    } else if (!gpu) {
        out.note = "not available: the trace names no GPU a preset matches";
    } else if (n == 0) {
        out.note = out.unattributedShare > 1 - kUnattributedTolerance
            ? "not available: " + uncounted + ", so no matrix FLOPs could be counted"
            : "not available: the analysed steps hold no matrix work with recorded shapes";
    } else if (nAbove > 0) {
        out.abovePeak = above / nAbove;
        out.note = "not shown: the operators' FLOPs over the analysed steps give " + formatPercent(*out.abovePeak)
            + " of the GPU's peak, which is impossible: the steps found are shorter than the work they launched, the "
              "operators' recorded shapes are not what ran, or the GPU the trace names is not the one it ran on";
    } else {
        out.mfu = sum / n;
        if (nHfu == n)
            out.hfu = hfuSum / nHfu;
        out.lowerBound = out.unattributedShare > kUnattributedTolerance;
        out.note = out.lowerBound ? "at least " + formatPercent(*out.mfu) + ": " + uncounted + ", and is not counted"
                                  : formatPercent(*out.mfu) + " from the operators' recorded shapes, no model needed";
    }
    return out;
}

std::string traceHfuText(const RunTraceMfu& m, const RunAnalysis& run)
{
    if (!m.hfu)
        return "";
    double recomputed = 0;
    for (const auto& r : run.ranks)
        recomputed += r.opFlops.attentionRecomputedFlops;
    const std::string what = recomputed > 0
        ? "recomputation included: the Q·Kᵀ the attention backward kernels compute again, "
            + formatNumber(recomputed / 1e12, 1) + " TFLOP over the file"
        : "no fused attention backward recomputed any";
    return formatPercent(*m.hfu) + ", the matrix FLOPs the kernels executed (" + what + ")";
}

std::optional<double> runTraceMfu(const RunAnalysis& run, const std::vector<HardwareSpec>& presets)
{
    return traceMfuOfRun(run, presets).mfu;
}

std::string attentionCountNote(const RunAnalysis& run, FlopFormula formula)
{
    // 6N counts no attention (its figure is the lower), the causal formula counts it as the operators ran.
    if (formula == FlopFormula::SixN || formula == FlopFormula::PerComponentCausal)
        return "";
    bool causal = false;
    for (const auto& r : run.ranks)
        for (const OpProblem& p : r.opFlops.problems)
            causal = causal || (p.kind == OpKind::Attention && p.causal);
    if (!causal)
        return "";
    return "the scenario's formula (" + std::string(flopFormulaKey(formula))
        + ") counts each attention layer over the whole square of keys, the trace's operators the causal half that "
          "ran (without the Q·Kᵀ their backward recomputes): "
        + std::string(flopFormulaKey(FlopFormula::PerComponentCausal)) + " counts as the trace does";
}

MfuCrossCheck crossCheckMfu(const RunAnalysis& run, double traceMfu, double measuredMfu, FlopFormula formula,
    const std::string& scenarioDifferences)
{
    MfuCrossCheck c;
    c.traceMfu = traceMfu;
    c.measuredMfu = measuredMfu;
    c.relativeDifference = traceMfu > 0 ? (measuredMfu - traceMfu) / traceMfu : 0.0;
    c.agrees = std::abs(c.relativeDifference) <= kMfuDisagreement;
    // The gap itself, and the tolerance it is within: "within 15%" alone read as if they were 15% apart.
    std::string how = "they agree: the scenario's figure is " + formatPercent(std::abs(c.relativeDifference))
        + (c.relativeDifference >= 0 ? " higher" : " lower") + ", within the " + formatNumber(kMfuDisagreement * 100, 0)
        + "% the two readings may differ by";
    if (!c.agrees && std::abs(c.relativeDifference) > 1)
        how = "the scenario's figure is " + formatNumber(measuredMfu / traceMfu, 2) + "x the trace's";
    else if (!c.agrees)
        how = "the scenario's figure is " + formatPercent(std::abs(c.relativeDifference))
            + (c.relativeDifference > 0 ? " higher" : " lower");
    // A figure above 100% is withheld as the run's MFU on every surface; the check names its ratio, not the figure.
    const std::string scenarioFigure
        = measuredMfu > 1.0 ? "above 100%, which is impossible" : formatPercent(measuredMfu);
    c.summary = "MFU from the trace's operators " + formatPercent(traceMfu) + ", from the scenario's model and tokens "
        + "per step " + scenarioFigure + ": " + how;
    if (c.agrees)
        return c;
    // The trace's own reading first (its steps, its graphs, what it could not count), the user's inputs last.
    int64_t withoutShapes = 0;
    double flops = 0, outside = 0;
    bool backward = false;
    std::string timing;
    for (const auto& r : run.ranks) {
        withoutShapes += r.opFlops.opsWithoutShapes;
        flops += r.opFlops.modelFlops();
        outside += r.opFlops.outsideStepsFlops;
        backward = backward || r.opFlops.backward;
        if (timing.empty())
            timing = stepTimingNote(r);
    }
    if (run.ranks.size() == 1 && run.ranks.front().stepSource != StepSource::CpuAnnotation)
        c.explanations.push_back("the steps are " + std::string(stepSourceLabel(run.ranks.front().stepSource))
            + ", not the training loop's CPU ProfilerStep annotations: the step time may not be the loop's");
    if (!timing.empty())
        c.explanations.push_back("the GPU's time per step differs from the loop's: " + timing);
    const double unattributed = pooledUnattributedShare(run);
    if (unattributed > kUnattributedTolerance && c.relativeDifference > 0)
        c.explanations.push_back(formatPercent(unattributed)
            + " of the GEMM and attention kernel time has no operator shapes (kernels a CUDA graph replays record "
              "none): the trace's figure leaves that work out");
    if (withoutShapes > 0 && c.relativeDifference > 0)
        c.explanations.push_back(formatNumber(static_cast<double>(withoutShapes))
            + " matrix operator(s) were recorded without shapes (or with shapes this count cannot read): their "
              "FLOPs are missing from the trace's figure");
    if (flops > 0 && outside / flops > 0.05)
        c.explanations.push_back(formatPercent(outside / flops)
            + " of the operators' FLOPs ran outside the analysed steps (before the first, in a step left out as "
              "incomplete, or with no kernel found): work the step time does not include");
    const double ratio = flopsPerStepRatio(run, traceMfu, measuredMfu);
    if (!backward && ratio > 2)
        c.explanations.push_back("the trace records no backward pass (inference, or a forward-only window) while the "
                                 "scenario's FLOP/token counts training: forward and backward, 3x the forward");
    if (const std::string count = attentionCountNote(run, formula); !count.empty() && ratio > 1)
        c.explanations.push_back(count);
    const std::string perStep = formatNumber(ratio, 2) + "x the FLOPs per step that the trace's operators did";
    if (!scenarioDifferences.empty())
        c.explanations.push_back("the scenario does not state this trace's run (" + scenarioDifferences
            + "): its model and tokens per step give " + perStep);
    else
        c.explanations.push_back(
            "the scenario's model or tokens per step may not describe this trace: they give " + perStep);
    return c;
}

} // namespace mfu::trace
