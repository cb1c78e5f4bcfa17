#include "core/money/scenario_cost.h"

#include "core/errors.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

std::string_view mfuOriginLabel(MfuOrigin origin)
{
    switch (origin) {
    case MfuOrigin::Given:
        return "given";
    case MfuOrigin::Measured:
        return "measured";
    case MfuOrigin::Predicted:
        return "predicted by the cost model";
    case MfuOrigin::Calibrated:
        return "predicted by the cost model, calibrated to a trace";
    }
    return "given";
}

ScenarioCost scenarioCost(
    const ScenarioDocument& document, std::optional<double> measuredMfu, std::optional<PredictedMfu> predicted)
{
    const std::optional<double> predictedMfu
        = predicted && !predicted->refused ? std::optional(predicted->mfu) : std::nullopt;
    const Scenario& s = document.scenario;
    const CostInputs& in = s.cost;
    ScenarioCost out;
    const bool measuredPossible = measuredMfu && *measuredMfu > 0 && *measuredMfu <= 1.0;
    std::string impossible;
    if (measuredMfu && !measuredPossible)
        impossible = "the measured throughput gives an MFU of " + formatPercent(*measuredMfu)
            + ", above 100%, which no run reaches: the scenario's GPU, model or tokens per step do not describe the "
              "measured run";
    if (in.baselineMfu) {
        out.baselineMfu = *in.baselineMfu;
        out.baselineOrigin = MfuOrigin::Given;
    } else if (measuredPossible) {
        out.baselineMfu = *measuredMfu;
        out.baselineOrigin = MfuOrigin::Measured;
    } else if (predictedMfu) {
        out.baselineMfu = *predictedMfu;
        out.baselineOrigin = predicted->calibrated ? MfuOrigin::Calibrated : MfuOrigin::Predicted;
        if (!impossible.empty())
            out.measuredSetAside = impossible + "; the job is costed at the cost model's "
                + (predicted->calibrated ? "calibrated" : "predicted") + " MFU instead";
    } else if (predicted && predicted->refused) {
        throw InputError("the cost model's " + formatPercent(predicted->mfu) + " MFU prices nothing: "
            + *predicted->refused + "; give a baseline MFU, or a configuration, GPU count or GPU on which it fits");
    } else if (!impossible.empty()) {
        throw InputError(impossible + "; give a baseline MFU or correct the scenario");
    } else {
        throw InputError("no MFU to cost the job at: give a baseline MFU, a measured throughput, or a scenario the "
                         "cost model can predict");
    }
    const double price = s.effectivePricePerGpuHourUsd();
    if (!(price > 0))
        throw InputError("no price per GPU-hour: set one for " + s.cluster.hardware.id);
    out.rate = clusterRate(s.cluster.hardware, s.cluster.gpuCount, price);
    out.flopsPerToken = scenarioFlopsPerToken(s);
    if (in.tokenBudget)
        out.job = costForTokens(*in.tokenBudget, out.flopsPerToken, out.baselineMfu, out.rate);
    else if (in.days)
        out.job = costForReservation(*in.days, out.rate, out.flopsPerToken, out.baselineMfu);
    else
        throw InputError("no job to cost: give a token budget or a number of days");
    if (in.targetMfu)
        out.savings = mfuSavings(out.job, { out.baselineMfu, *in.targetMfu }, out.rate);
    return out;
}

} // namespace mfu
