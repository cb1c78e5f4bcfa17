#include "core/costmodel/calibration.h"

#include <algorithm>
#include <string>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace mfu {

namespace {

// The efficiencies a calibration scales: one list for the scaling and for the scale past which nothing changes.
constexpr double CostModelConstants::*kScaledEfficiencies[] = {
    &CostModelConstants::gemmEfficiency,
    &CostModelConstants::isolatedGemmEfficiency, // a lone GPU's GEMMs
    &CostModelConstants::attentionForwardEfficiency, &CostModelConstants::attentionBackwardEfficiency,
    &CostModelConstants::hbmEfficiency,
    &CostModelConstants::eagerHbmEfficiency, // eager kernels under autocast
};

// The scale that lifts the least efficient of them to 1.
double saturatingScale(const CostModelConstants& c)
{
    double least = 1.0;
    for (const auto member : kScaledEfficiencies)
        if (c.*member > 0)
            least = std::min(least, c.*member);
    return 1.0 / least;
}

} // namespace

CostModelConstants scaledEfficiencies(const CostModelConstants& c, double k)
{
    CostModelConstants out = c;
    for (const auto member : kScaledEfficiencies)
        out.*member = std::min(1.0, c.*member * k);
    return out;
}

CalibrationResult calibrateToMfu(const Scenario& scenario, double measuredMfu)
{
    if (!(measuredMfu > 0) || measuredMfu >= 1.0)
        throw InputError("calibration: a measured MFU lies above 0% and below 100% (no run computes at its peak), got "
            + formatPercent(measuredMfu));
    const HardwareSpec& hw = scenario.cluster.hardware;
    const CostModelConstants base = costModelConstantsFor(scenario);
    const auto mfuAt = [&](double k) {
        return CostModel(scenario.model, hw, scaledEfficiencies(base, k)).evaluateValid(scenario).mfu;
    };

    CalibrationResult r;
    r.before = CostModel(scenario.model, hw, base).evaluate(scenario);
    // Past the scale that lifts the least efficient constant to 1 nothing changes any more.
    double lo = 0.02, hi = saturatingScale(base);
    const double reachLo = mfuAt(lo), reachHi = mfuAt(hi);
    if (measuredMfu < reachLo || measuredMfu > reachHi)
        throw InputError("calibration: measured MFU " + formatPercent(measuredMfu)
            + " is outside what this scenario can reach (" + formatPercent(reachLo) + " to " + formatPercent(reachHi)
            + "); check the configuration (communication or memory limits do not scale with efficiency)");
    for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
        const double mid = 0.5 * (lo + hi);
        (mfuAt(mid) < measuredMfu ? lo : hi) = mid;
    }
    r.scale = 0.5 * (lo + hi);
    r.constants = scaledEfficiencies(base, r.scale);
    r.constants.basis = base.basis + " calibrated x" + std::to_string(r.scale).substr(0, 5);
    r.after = CostModel(scenario.model, hw, r.constants).evaluate(scenario);
    return r;
}

CalibrationResult calibrateToTokensPerSecPerGpu(const Scenario& scenario, double tokensPerSecPerGpu)
{
    if (!(tokensPerSecPerGpu > 0))
        throw InputError("calibration: measured tokens/s per GPU must be positive");
    const StepPrediction p = evaluate(scenario);
    // MFU is proportional to tokens/s at fixed FLOP/token and peak.
    return calibrateToMfu(scenario, p.mfu * tokensPerSecPerGpu / p.tokensPerSecPerGpu);
}

} // namespace mfu
