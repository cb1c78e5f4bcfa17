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

} // namespace mfu
