#include "core/costmodel/constants.h"

#include "core/scenario/scenario.h"

namespace mfu {

CostModelConstants costModelConstantsFor(const Scenario& scenario)
{
    return scenario.costModel ? *scenario.costModel : defaultCostModelConstants(scenario.cluster.hardware);
}

CostModelConstants loneGpuConstants(const CostModelConstants& c)
{
    CostModelConstants out = c;
    out.gemmEfficiency = c.isolatedGemmEfficiency;
    out.gemmHalfSaturationDim = c.isolatedGemmHalfSaturationDim;
    return out;
}

bool runsAsLoneGpu(const Scenario& scenario, const CostModelConstants& c)
{
    return scenario.cluster.gpuCount == 1 && c.isolatedGemmEfficiency > 0;
}

} // namespace mfu
