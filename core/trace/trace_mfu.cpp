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

std::optional<TraceMfu> rankTraceMfu(const RankAnalysis& rank, const HardwareSpec& hardware)
{
    if (!rank.opFlops.recordsShapes)
        return std::nullopt;
    return traceMfu(rank.opFlops.inSteps, static_cast<double>(rank.stepWindowsNs()) / 1e9, hardware);
}

std::optional<TraceMfu> stepTraceMfu(const RankAnalysis& rank, size_t step, const HardwareSpec& hardware)
{
    if (!rank.opFlops.recordsShapes || step >= rank.steps.size() || step >= rank.opFlops.perStep.size())
        return std::nullopt;
    return traceMfu(
        rank.opFlops.perStep[step], static_cast<double>(rank.steps[step].step.windowDurationNs()) / 1e9, hardware);
}

std::optional<double> runTraceMfu(const RunAnalysis& run, const std::vector<HardwareSpec>& presets)
{
    double sum = 0;
    int n = 0;
    for (const auto& r : run.ranks)
        if (const auto hw = traceHardware(r, presets))
            if (const auto m = rankTraceMfu(r, *hw)) {
                sum += m->mfu;
                ++n;
            }
    return n > 0 ? std::optional(sum / n) : std::nullopt;
}

MfuCrossCheck crossCheckMfu(const RunAnalysis& run, double traceMfu, double measuredMfu)
{
    MfuCrossCheck c;
    c.traceMfu = traceMfu;
    c.measuredMfu = measuredMfu;
    c.relativeDifference = traceMfu > 0 ? (measuredMfu - traceMfu) / traceMfu : 0.0;
    c.agrees = std::abs(c.relativeDifference) <= kMfuDisagreement;
    std::string how = "they agree within " + formatPercent(kMfuDisagreement);
    if (!c.agrees && std::abs(c.relativeDifference) > 1)
        how = "the scenario's figure is " + formatNumber(measuredMfu / traceMfu, 2) + "x the trace's";
    else if (!c.agrees)
        how = "the scenario's figure is " + formatPercent(std::abs(c.relativeDifference))
            + (c.relativeDifference > 0 ? " higher" : " lower");
    c.summary = "MFU from the trace's operators " + formatPercent(traceMfu) + ", from the scenario's model and tokens "
        + "per step " + formatPercent(measuredMfu) + ": " + how;
    if (c.agrees)
        return c;
    int64_t withoutShapes = 0;
    double flops = 0, outside = 0;
    bool backward = false;
    for (const auto& r : run.ranks) {
        withoutShapes += r.opFlops.opsWithoutShapes;
        flops += r.opFlops.modelFlops();
        outside += r.opFlops.outsideStepsFlops;
        backward = backward || r.opFlops.backward;
    }
    const double ratio = traceMfu > 0 ? measuredMfu / traceMfu : 0;
    c.explanations.push_back("the scenario's model or tokens per step may not describe this trace: they give "
        + formatNumber(ratio, 2) + "x the FLOPs per step that the trace's operators did");
    if (!backward && ratio > 2)
        c.explanations.push_back("the trace records no backward pass (inference, or a forward-only window) while the "
                                 "scenario's FLOP/token counts training: forward and backward, 3x the forward");
    if (withoutShapes > 0 && c.relativeDifference > 0)
        c.explanations.push_back(formatNumber(static_cast<double>(withoutShapes))
            + " matrix operator(s) were recorded without shapes (or with shapes this count cannot read): their "
              "FLOPs are missing from the trace's figure");
    if (flops > 0 && outside / flops > 0.05)
        c.explanations.push_back(formatPercent(outside / flops)
            + " of the operators' FLOPs ran outside the analysed steps (before the first, in the dropped last step, "
              "or with no kernel found): work the step time does not include");
    return c;
}

} // namespace mfu::trace
