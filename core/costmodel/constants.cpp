#include "core/costmodel/constants.h"

#include "core/scenario/scenario.h"

namespace mfu {

CostModelConstants costModelConstantsFor(const Scenario& scenario)
{
    return scenario.costModel ? *scenario.costModel : defaultCostModelConstants(scenario.cluster.hardware);
}

} // namespace mfu
