#include "core/trace/step_work.h"

#include <algorithm>

#include "core/number_format.h"

namespace mfu::trace {

StepMatrixWork stepMatrixWork(const RankAnalysis& rank)
{
    StepMatrixWork out;
    const double inSteps = totalFlops(rank.opFlops.inSteps);
    out.flopsPerStep = inSteps / std::max<double>(1, static_cast<double>(rank.steps.size()));
    for (const PrecisionFlops& p : rank.opFlops.inSteps)
        if (inSteps > 0 && p.flops / inSteps >= 0.001)
            out.precisions.push_back({ p.known ? p.precision.label() : std::string("unknown"), p.flops / inSteps });
    return out;
}

std::string precisionSharesText(const StepMatrixWork& work)
{
    std::string text;
    for (const PrecisionShare& p : work.precisions)
        text += (text.empty() ? "" : ", ") + p.label + " " + formatPercent(p.share);
    return text;
}

std::string shapelessOperatorsText(const OpFlops& flops)
{
    std::string text = formatNumber(static_cast<double>(flops.opsWithoutShapes)) + " without readable shapes";
    if (flops.opsWithImpossibleShapes > 0)
        text += " (" + formatNumber(static_cast<double>(flops.opsWithImpossibleShapes))
            + " with tensors no device could hold: more than " + formatNumber(kLargestOperatorBytes / 1e12, 0)
            + " TB an operator)";
    return text;
}

} // namespace mfu::trace
