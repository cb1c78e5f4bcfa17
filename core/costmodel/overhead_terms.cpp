#include "core/costmodel/overhead_terms.h"

namespace mfu {

double launchOverheadTime(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const Scenario& s = *x.scenario;
    const double passes = s.activationCheckpointing == ActivationCheckpointing::None ? 2.0
        : s.activationCheckpointing == ActivationCheckpointing::Full                 ? 2.0 + x.fullRecomputeShare
                                                                                     : 3.0;
    return passes * x.layersPerStage
        * (s.flags.compiled ? c.perLayerOverheadSecondsCompiled : c.perLayerOverheadSecondsEager);
}

} // namespace mfu
